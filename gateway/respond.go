package gateway

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"sync"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/protocol"
)

// validRequestID accepts a caller's X-Request-Id for the audit record only
// if it is short and plain, so it is safe to write into logs.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID is the gate's own id for a call: always minted here, so no
// caller can make two audit records share an id.
func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// clientRequestID is the caller's X-Request-Id when it is well-formed; it is
// recorded beside the gate's id so callers can correlate their own traces.
func clientRequestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); validRequestID.MatchString(id) {
		return id
	}
	return ""
}

// writeJSON encodes v into a pooled buffer first, so the response carries
// its Content-Length and goes out in one write (a body over 2 KiB written
// straight to the ResponseWriter is sent chunked).
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	buf.Reset()
	encodeJSON(buf, v)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// encodeJSON writes v as an Encoder with SetEscapeHTML(false) does, newline
// included: an error body, a health report.
func encodeJSON(buf *bytes.Buffer, v any) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putJSONBuffer keeps buffers of ordinary responses; a rare large one
// (a big get_page batch) is left to the GC rather than pinned.
func putJSONBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 256<<10 {
		jsonBuffers.Put(buf)
	}
}

// writeOK writes a call's result: its body (protocol.Result.AppendBody:
// the hand-written JSON of a search or an answer, encoding/json's of the
// others, a feedback response as the store kept it), from a pooled buffer
// with its Content-Length. A body JSON cannot carry (a NaN score) is
// written empty, as encoding/json left it.
func writeOK(w http.ResponseWriter, out protocol.Result) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	buf.Reset()
	if b, err := out.AppendBody(buf.AvailableBuffer()); err == nil {
		buf.Write(b)
	}
	h := w.Header()
	if out.Replayed() {
		// The body is the first call's, byte for byte; the header is how
		// a client tells a replay from a first write without parsing it.
		h.Set("Idempotent-Replayed", "true")
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// resultOf is a handler's value and its error as the Result the fronts
// render (nil with the error).
func resultOf[T any, P interface {
	*T
	protocol.Result
}](v T, err error) (protocol.Result, error) {
	if err != nil {
		return nil, err
	}
	return P(&v), nil
}

// writeError writes the protocol's error envelope.
func writeError(w http.ResponseWriter, reqID string, e *protocol.Error) {
	writeErrorBody(w, e, protocol.ErrorBody{Error: protocol.ErrorDetail{Code: e.Code, Message: e.Message, RequestID: reqID}})
}

// writeErrorBody writes a refusal: e's status and headers, with body.
func writeErrorBody(w http.ResponseWriter, e *protocol.Error, body any) {
	if e.Code == protocol.CodeMethodNotAllowed && e.Header.Get("Allow") == "" {
		w.Header().Set("Allow", http.MethodPost) // every route but the GET ones (getOnly)
	}
	if e.Code == protocol.CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="wikigate"`)
	}
	copyHeader(w.Header(), e.Header)
	writeJSON(w, e.Status, body)
}

func zapRequestID(id string) zap.Field { return zap.String("request_id", id) }
func zapError(err error) zap.Field     { return zap.Error(err) }

// getOnly is the 405 of a GET route (a session's history, a stream's
// resume): its Allow names GET, where every other route's names POST.
func getOnly(rt route) *protocol.Error {
	pe := protocol.NewError(protocol.CodeMethodNotAllowed, rt.endpoint+" accepts GET only")
	pe.Header = http.Header{"Allow": {http.MethodGet}}
	return pe
}
