package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The RAGFlow stand-in (-ragflow-record URL) puts run C on the footing of
// run A: A's backend is this program answering from memory in its own
// process, while C's was the development RAGFlow, whose retrieval and
// generation (about three times the gate's CPU per ask) ran on the same two
// cores as the measured Caddy and starved it (bench/README.md, C against
// the RAGFlow stand-in). The stand-in asks the development RAGFlow once per
// route and replays that answer from then on.
//
// It is for benchmarks that repeat one question: after a route's first
// 200 answer it ignores every request body on that route, so a different
// question gets the first question's answer.

// recordedRoutes are the RAGFlow calls the gate makes on an ask; everything
// else (the health check, ingest) goes to the upstream unrecorded.
var recordedRoutes = map[string]bool{
	"/api/v1/retrieval":        true,
	"/api/v1/chat/completions": true,
}

// maxRequestBody bounds a forwarded request body (the gate's ask prompt is
// about 10 KB).
const maxRequestBody = 1 << 20

// recording is one upstream 200 answer as the stand-in replays it: the
// headers to send and the body, split into its SSE events when the answer
// is a stream (one write and one flush each, as RAGFlow writes them) or
// one piece otherwise.
type recording struct {
	header http.Header
	pieces [][]byte
	stream bool
}

// recorder answers the recorded routes from the first 200 answer of the
// upstream and forwards everything else.
type recorder struct {
	upstream *url.URL
	client   *http.Client
	maxBody  int
	proxy    *httputil.ReverseProxy
	routes   map[string]*route
	// upstreamCalls counts the requests sent upstream on recorded routes.
	upstreamCalls atomic.Int64
}

// route is one recorded route: its answer once kept, and a lock that lets
// one request at a time ask the upstream while there is none, so 32
// connections starting together cause one upstream call, not 32.
type route struct {
	kept   atomic.Pointer[recording]
	record sync.Mutex
}

// newRecorder forwards to upstream and keeps answers whose body is at most
// maxBody bytes; a larger one is passed through and not kept.
func newRecorder(upstream *url.URL, maxBody int) *recorder {
	rec := &recorder{
		upstream: upstream,
		client:   &http.Client{Timeout: 60 * time.Second},
		maxBody:  maxBody,
		proxy:    httputil.NewSingleHostReverseProxy(upstream),
		routes:   map[string]*route{},
	}
	for path := range recordedRoutes {
		rec.routes[path] = &route{}
	}
	return rec
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := rec.routes[r.URL.Path]
	if rt == nil || r.Method != http.MethodPost {
		rec.proxy.ServeHTTP(w, r)
		return
	}
	if kept := rt.kept.Load(); kept != nil {
		replay(w, kept)
		return
	}
	rt.record.Lock()
	defer rt.record.Unlock()
	if kept := rt.kept.Load(); kept != nil { // recorded while this one waited
		replay(w, kept)
		return
	}
	rec.forward(w, r, rt)
}

// forward sends r upstream; a 200 answer that fits maxBody is kept on rt
// and replayed to w like every later one, anything else is passed through
// as it came and not kept.
func (rec *recorder) forward(w http.ResponseWriter, r *http.Request, rt *route) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		http.Error(w, "standin: reading the request: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	target := *rec.upstream
	target.Path, target.RawQuery = singleSlashJoin(rec.upstream.Path, r.URL.Path), r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "standin: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone() // Authorization included: the upstream checks its key
	removeHopHeaders(out.Header)
	rec.upstreamCalls.Add(1)
	resp, err := rec.client.Do(out)
	if err != nil {
		http.Error(w, "standin: the upstream RAGFlow: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, int64(rec.maxBody)+1))
	if err != nil {
		http.Error(w, "standin: reading the upstream's answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	if resp.StatusCode != http.StatusOK || len(got) > rec.maxBody {
		log.Printf("standin: %s answered %d (%d+ bytes): passed through, not kept", r.URL.Path, resp.StatusCode, len(got))
		passThrough(w, resp, got)
		return
	}
	kept := newRecording(resp.Header, got)
	if code := errorCode(kept); code != 0 {
		log.Printf("standin: %s answered RAGFlow error code %d: passed through, not kept", r.URL.Path, code)
		replay(w, kept)
		return
	}
	rt.kept.Store(kept)
	log.Printf("standin: %s recorded: %d bytes in %d piece(s), %s", r.URL.Path, len(got), len(kept.pieces), resp.Header.Get("Content-Type"))
	replay(w, kept)
}

// newRecording keeps header (less what each response sets for itself) and
// body, split after each blank line into SSE events when the answer is an
// event stream.
func newRecording(header http.Header, body []byte) *recording {
	h := header.Clone()
	removeHopHeaders(h)
	h.Del("Date")
	h.Del("Content-Length")
	kept := &recording{header: h}
	if mediaType, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mediaType == "text/event-stream" {
		kept.stream = true
		kept.pieces = bytes.SplitAfter(body, []byte("\n\n"))
		if last := len(kept.pieces) - 1; len(kept.pieces[last]) == 0 {
			kept.pieces = kept.pieces[:last]
		}
		return kept
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	kept.pieces = [][]byte{body}
	return kept
}

// errorCode is the first RAGFlow error code (a "code" other than 0) in a
// recording's JSON body or its events, or 0: RAGFlow answers most errors
// with HTTP 200 and the code in the body, and such an answer must not be
// replayed for every later request. A body that is not JSON with a code
// counts as no error.
func errorCode(kept *recording) int {
	for _, piece := range kept.pieces {
		payload := bytes.TrimSpace(piece)
		if kept.stream {
			payload = bytes.TrimSpace(bytes.TrimPrefix(payload, []byte("data:")))
		}
		var envelope struct {
			Code *int `json:"code"`
		}
		if json.Unmarshal(payload, &envelope) == nil && envelope.Code != nil && *envelope.Code != 0 {
			return *envelope.Code
		}
	}
	return 0
}

// replay writes a kept answer: a stream one event at a time, each flushed
// before the next is written.
func replay(w http.ResponseWriter, kept *recording) {
	for k, v := range kept.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for _, piece := range kept.pieces {
		if _, err := w.Write(piece); err != nil {
			return
		}
		if kept.stream && flusher != nil {
			flusher.Flush()
		}
	}
}

// passThrough writes resp as it came: its status, headers, the part of the
// body already read (got) and the rest.
func passThrough(w http.ResponseWriter, resp *http.Response, got []byte) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	removeHopHeaders(w.Header())
	w.WriteHeader(resp.StatusCode)
	if _, err := w.Write(got); err == nil {
		_, _ = io.Copy(w, resp.Body)
	}
}

// hopHeaders are the hop-by-hop headers (RFC 9110, section 7.6.1), which
// a proxy does not forward.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHopHeaders(h http.Header) {
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

func singleSlashJoin(base, path string) string {
	switch {
	case base == "" || base == "/":
		return path
	case base[len(base)-1] == '/' && path != "" && path[0] == '/':
		return base + path[1:]
	default:
		return base + path
	}
}

// parseUpstream reads -ragflow-record's URL: http or https with a host.
func parseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL with a host", raw)
	}
	return u, nil
}
