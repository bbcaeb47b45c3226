package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHandlerAnswersSearchesWithTheBody(t *testing.T) {
	srv := httptest.NewServer(handler([]byte(`{"hits":[]}`)))
	defer srv.Close()
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{http.MethodPost, "/indexes/wiki_pages/search", 200, `{"hits":[]}`},
		{http.MethodGet, "/health", 200, `{"status":"available"}`},
		{http.MethodGet, "/indexes/wiki_pages/search", 404, ""},
		{http.MethodPost, "/indexes/wiki_pages/documents", 404, ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"q":"x"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.body != "" && string(body) != tc.body) {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.body)
		}
	}
}

// fakeRAGFlow is an upstream written for the tests: it checks the key,
// counts the calls per path, answers the retrieval with JSON and the
// completion with an SSE stream of events, and answers status (when set)
// instead of 200 on the first calls.
type fakeRAGFlow struct {
	calls      map[string]*atomic.Int64
	failFirstN int64
	bodies     chan string
}

const (
	fakeKey       = "Bearer ragflow-test-key"
	retrievalBody = `{"code":0,"data":{"chunks":[{"id":"c1","content":"x"}],"total":1}}`
)

var fakeEvents = []string{
	"data:{\"code\": 0, \"data\": {\"answer\": \"Set \"}}\n\n",
	"data:{\"code\": 0, \"data\": {\"answer\": \"memory.\"}}\n\n",
	"data:{\"code\": 0, \"data\": true}\n\n",
}

func newFakeRAGFlow(t *testing.T, failFirstN int64) (*fakeRAGFlow, *httptest.Server) {
	f := &fakeRAGFlow{
		calls:      map[string]*atomic.Int64{"/api/v1/retrieval": {}, "/api/v1/chat/completions": {}, "/api/v1/system/healthz": {}},
		failFirstN: failFirstN,
		bodies:     make(chan string, 100),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.calls[r.URL.Path]
		if n == nil {
			http.NotFound(w, r)
			return
		}
		call := n.Add(1)
		if r.URL.Path == "/api/v1/system/healthz" {
			_, _ = io.WriteString(w, `{"code":0,"data":{"status":"ok"}}`)
			return
		}
		if r.Header.Get("Authorization") != fakeKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		f.bodies <- string(body)
		if call <= f.failFirstN {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"code":503,"message":"busy"}`)
			return
		}
		w.Header().Set("X-Upstream", "fake")
		if r.URL.Path == "/api/v1/retrieval" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, retrievalBody)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		for _, ev := range fakeEvents {
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

func newTestRecorder(t *testing.T, upstream string, maxBody int) *recorder {
	u, err := parseUpstream(upstream)
	if err != nil {
		t.Fatal(err)
	}
	return newRecorder(u, maxBody)
}

// post sends a POST with the fake's key to h and returns the response.
func post(h http.Handler, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Authorization", fakeKey)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestRAGFlowRecordsOnceThenReplaysWithoutTheUpstream(t *testing.T) {
	f, up := newFakeRAGFlow(t, 0)
	rec := newTestRecorder(t, up.URL, 1<<20)
	for i := 0; i < 5; i++ {
		w := post(rec, "/api/v1/retrieval", fmt.Sprintf(`{"question":"q%d"}`, i))
		if w.Code != 200 || w.Body.String() != retrievalBody {
			t.Fatalf("retrieval %d = %d %q, want 200 %q", i, w.Code, w.Body, retrievalBody)
		}
		if w.Header().Get("X-Upstream") != "fake" || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("retrieval %d headers = %v, want the upstream's", i, w.Header())
		}
		if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(retrievalBody)) {
			t.Errorf("retrieval %d Content-Length = %q, want %d", i, got, len(retrievalBody))
		}
	}
	if n := f.calls["/api/v1/retrieval"].Load(); n != 1 {
		t.Errorf("upstream retrievals = %d, want 1 (the first request only)", n)
	}
	if got := <-f.bodies; got != `{"question":"q0"}` {
		t.Errorf("upstream got body %q, want the first request's", got)
	}
	if n := f.calls["/api/v1/chat/completions"].Load(); n != 0 {
		t.Errorf("upstream completions = %d before any was asked", n)
	}
	for i := 0; i < 3; i++ {
		w := post(rec, "/api/v1/chat/completions", `{"stream":true}`)
		if w.Code != 200 || w.Body.String() != strings.Join(fakeEvents, "") {
			t.Fatalf("completion %d = %d %q", i, w.Code, w.Body)
		}
	}
	if n := f.calls["/api/v1/chat/completions"].Load(); n != 1 {
		t.Errorf("upstream completions = %d, want 1", n)
	}
	if n := rec.upstreamCalls.Load(); n != 2 {
		t.Errorf("recorder counted %d upstream calls, want 2", n)
	}
}

func TestRAGFlowConcurrentFirstRequestsAskTheUpstreamOnce(t *testing.T) {
	f, up := newFakeRAGFlow(t, 0)
	srv := httptest.NewServer(newTestRecorder(t, up.URL, 1<<20))
	defer srv.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/retrieval", strings.NewReader(`{}`))
			req.Header.Set("Authorization", fakeKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != retrievalBody {
				errs <- fmt.Errorf("got %d %q", resp.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := f.calls["/api/v1/retrieval"].Load(); n != 1 {
		t.Errorf("16 concurrent first requests made %d upstream calls, want 1", n)
	}
}

// flushWriter records what was written between flushes.
type flushWriter struct {
	*httptest.ResponseRecorder
	flushed []string
	pending strings.Builder
}

func (w *flushWriter) Write(p []byte) (int, error) {
	w.pending.Write(p)
	return w.ResponseRecorder.Write(p)
}

func (w *flushWriter) Flush() {
	w.flushed = append(w.flushed, w.pending.String())
	w.pending.Reset()
	w.ResponseRecorder.Flush()
}

func TestRAGFlowReplaysAStreamOneFlushedEventAtATime(t *testing.T) {
	_, up := newFakeRAGFlow(t, 0)
	rec := newTestRecorder(t, up.URL, 1<<20)
	for i := 0; i < 2; i++ { // the recording request, then a replay
		req := httptest.NewRequest(http.MethodPost, "/api/v1/chat/completions", strings.NewReader(`{}`))
		req.Header.Set("Authorization", fakeKey)
		w := &flushWriter{ResponseRecorder: httptest.NewRecorder()}
		rec.ServeHTTP(w, req)
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
			t.Errorf("request %d Content-Type = %q", i, ct)
		}
		if w.Header().Get("Content-Length") != "" {
			t.Errorf("request %d: a stream with Content-Length %q", i, w.Header().Get("Content-Length"))
		}
		if strings.Join(w.flushed, "|") != strings.Join(fakeEvents, "|") || w.pending.Len() != 0 {
			t.Errorf("request %d flushed %q (then %q unflushed), want one flush per event %q", i, w.flushed, w.pending.String(), fakeEvents)
		}
	}
}

func TestRAGFlowStreamReachesTheClientEventByEvent(t *testing.T) {
	// A client reading the replay over HTTP sees the first event before the
	// last is written: the writer below holds the last event until the
	// client has read the first.
	_, up := newFakeRAGFlow(t, 0)
	rec := newTestRecorder(t, up.URL, 1<<20)
	post(rec, "/api/v1/chat/completions", `{}`) // record
	firstRead := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.ServeHTTP(&gatedWriter{ResponseWriter: w, gate: firstRead, last: fakeEvents[len(fakeEvents)-1]}, r)
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/chat/completions", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, len(fakeEvents[0]))
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != fakeEvents[0] {
		t.Fatalf("first event = %q, %v", buf, err)
	}
	close(firstRead)
	rest, _ := io.ReadAll(resp.Body)
	if string(rest) != strings.Join(fakeEvents[1:], "") {
		t.Errorf("rest = %q", rest)
	}
}

// gatedWriter waits (at most 5 s) for gate before writing last.
type gatedWriter struct {
	http.ResponseWriter
	gate <-chan struct{}
	last string
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	if string(p) == w.last {
		select {
		case <-w.gate:
		case <-time.After(5 * time.Second):
			return 0, fmt.Errorf("the client did not read the first event before the last was written")
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *gatedWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func TestRAGFlowPassesNon200ThroughAndDoesNotKeepIt(t *testing.T) {
	f, up := newFakeRAGFlow(t, 1)
	rec := newTestRecorder(t, up.URL, 1<<20)
	w := post(rec, "/api/v1/retrieval", `{}`)
	if w.Code != http.StatusServiceUnavailable || w.Body.String() != `{"code":503,"message":"busy"}` {
		t.Fatalf("first = %d %q, want the upstream's 503", w.Code, w.Body)
	}
	for i := 0; i < 3; i++ {
		if w := post(rec, "/api/v1/retrieval", `{}`); w.Code != 200 || w.Body.String() != retrievalBody {
			t.Fatalf("after the 503, request %d = %d %q, want the 200", i, w.Code, w.Body)
		}
	}
	if n := f.calls["/api/v1/retrieval"].Load(); n != 2 {
		t.Errorf("upstream retrievals = %d, want 2 (the 503, then the 200 kept)", n)
	}
}

func TestRAGFlowPassesATooLargeAnswerThroughAndDoesNotKeepIt(t *testing.T) {
	f, up := newFakeRAGFlow(t, 0)
	rec := newTestRecorder(t, up.URL, len(retrievalBody)-1)
	for i := 0; i < 2; i++ {
		if w := post(rec, "/api/v1/retrieval", `{}`); w.Code != 200 || w.Body.String() != retrievalBody {
			t.Fatalf("request %d = %d %q, want the whole answer", i, w.Code, w.Body)
		}
	}
	if n := f.calls["/api/v1/retrieval"].Load(); n != 2 {
		t.Errorf("upstream retrievals = %d, want 2 (nothing kept above the cap)", n)
	}
}

func TestRAGFlowProxiesOtherRoutes(t *testing.T) {
	f, up := newFakeRAGFlow(t, 0)
	srv := httptest.NewServer(newTestRecorder(t, up.URL, 1<<20))
	defer srv.Close()
	for i := 0; i < 2; i++ {
		resp, err := http.Get(srv.URL + "/api/v1/system/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
			t.Errorf("healthz = %d %q", resp.StatusCode, body)
		}
	}
	if n := f.calls["/api/v1/system/healthz"].Load(); n != 2 {
		t.Errorf("upstream health checks = %d, want 2 (never replayed)", n)
	}
	resp, err := http.Get(srv.URL + "/api/v1/retrieval") // GET: not a recorded call
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := f.calls["/api/v1/retrieval"].Load(); n != 1 {
		t.Errorf("GET /api/v1/retrieval reached the upstream %d times, want 1 (proxied)", n)
	}
}

func TestParseUpstreamRefusesWhatIsNotAnHTTPURL(t *testing.T) {
	for _, raw := range []string{"127.0.0.1:9380", "ftp://x", "http://", "://"} {
		if _, err := parseUpstream(raw); err == nil {
			t.Errorf("parseUpstream(%q) accepted it", raw)
		}
	}
	if _, err := parseUpstream("http://127.0.0.1:9380"); err != nil {
		t.Error(err)
	}
}

func TestRAGFlowDoesNotKeepA200CarryingARAGFlowError(t *testing.T) {
	// RAGFlow answers most errors with HTTP 200 and a code in the body (or
	// in an event of a stream); such an answer is passed on, not replayed.
	answers := map[string][]string{
		"/api/v1/retrieval":        {`{"code":101,"data":null,"message":"required argument are missing: question; "}`, retrievalBody},
		"/api/v1/chat/completions": {"data:{\"code\": 0, \"data\": {\"answer\": \"x\"}}\n\ndata:{\"code\": 500, \"message\": \"model failed\"}\n\n", strings.Join(fakeEvents, "")},
	}
	calls := map[string]int{}
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := calls[r.URL.Path]
		calls[r.URL.Path]++
		mu.Unlock()
		list := answers[r.URL.Path]
		if r.URL.Path == "/api/v1/chat/completions" {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = io.WriteString(w, list[min(n, len(list)-1)])
	}))
	defer up.Close()
	rec := newTestRecorder(t, up.URL, 1<<20)
	for path, list := range answers {
		for i, want := range []string{list[0], list[1], list[1]} {
			if w := post(rec, path, `{}`); w.Code != 200 || w.Body.String() != want {
				t.Errorf("%s request %d = %d %q, want %q", path, i, w.Code, w.Body, want)
			}
		}
		if calls[path] != 2 {
			t.Errorf("%s reached the upstream %d times, want 2 (the error passed on, the success kept)", path, calls[path])
		}
	}
}
