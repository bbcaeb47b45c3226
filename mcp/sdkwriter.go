package mcp

import (
	"bytes"
	"net/http"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// sdkWriter is the ResponseWriter the SDK's handlers write to. It keeps
// promises the SDK does not (docs/agents.md "MCP"):
//   - every refusal is JSON: the SDK's plain-text http.Error answers (no
//     Accept, an unknown protocol version, GET without a session, a bad
//     Last-Event-ID...) are rewritten as JSON-RPC errors with the same
//     status;
//   - a tools/call's SSE stream starts only once the gate has admitted the
//     call (its budget spent), so a rate-limited call can still be answered
//     HTTP 429 with Retry-After like the HTTP route: the priming event the
//     SDK writes first is held until then;
//   - a cancelled call (notifications/cancelled) gets no response: what
//     the SDK writes after the cancellation is dropped;
//   - the priming event carries retry:, which the SDK does not write.
type sdkWriter struct {
	w  http.ResponseWriter
	id jsontext.Value // the message's id; nil for GET, DELETE and notifications

	mu      sync.Mutex
	status  int           // status asked for and not yet sent (0: none)
	sent    bool          // status line and headers are out
	plain   *bytes.Buffer // an http.Error body being collected
	holding bool          // the stream's start waits for the call's admission
	held    []byte        // what was written while holding
	closed  bool          // nothing more goes out (a 429 was written, or the call was cancelled)
}

// sseRetry is the reconnection delay the priming event names, in
// milliseconds: a client whose stream broke waits this long before it
// resumes with Last-Event-ID.
const sseRetry = "1000"

func newSDKWriter(w http.ResponseWriter, ex *exchange) *sdkWriter {
	sw := &sdkWriter{w: w}
	if ex.msg != nil {
		sw.id = ex.msg.ID
		sw.holding = ex.msg.Method == "tools/call"
	}
	return sw
}

func (s *sdkWriter) Header() http.Header { return s.w.Header() }

func (s *sdkWriter) WriteHeader(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.sent || s.closed || s.plain != nil:
	case status >= 400 && strings.HasPrefix(s.w.Header().Get("Content-Type"), "text/plain"):
		s.plain, s.status = &bytes.Buffer{}, status
	case s.holding:
		s.status = status
	default:
		s.sendHeader(status)
	}
}

func (s *sdkWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return len(b), nil
	case s.plain != nil:
		return s.plain.Write(b)
	}
	b = withRetry(b)
	if bytes.Equal(b, getStreamStart) {
		b = getStreamStartWithRetry
	}
	if s.holding && bytes.HasPrefix(b, primeEvent) {
		s.held = append(s.held, b...)
		return len(b), nil
	}
	s.releaseLocked()
	if !s.sent {
		s.sendHeader(http.StatusOK)
	}
	return s.w.Write(b)
}

// Flush passes on the SDK's flushes once the stream has started.
func (s *sdkWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent && !s.closed {
		_ = http.NewResponseController(s.w).Flush()
	}
}

func (s *sdkWriter) sendHeader(status int) {
	if s.status != 0 {
		status = s.status
	}
	s.sent = true
	s.w.WriteHeader(status)
}

// admitted starts the held stream: the gate took the call's budget and
// is running it, so no 429 can follow.
func (s *sdkWriter) admitted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.releaseLocked()
		_ = http.NewResponseController(s.w).Flush()
	}
}

func (s *sdkWriter) releaseLocked() {
	if !s.holding {
		return
	}
	s.holding = false
	if len(s.held) == 0 && s.status == 0 {
		return
	}
	s.sendHeader(http.StatusOK)
	_, _ = s.w.Write(s.held)
	s.held = nil
}

// refuse answers the call with ref (a 429) instead of the SDK's stream,
// when nothing of the stream has been sent; it reports whether it did.
func (s *sdkWriter) refuse(ref *refusal, data *errorData) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent || s.closed {
		return false
	}
	h := s.w.Header()
	for _, k := range []string{"Connection", "Content-Type", "Cache-Control"} {
		delete(h, k)
	}
	ref.id = s.id
	writeRefusal(s.w, ref, data)
	s.sent, s.closed, s.held = true, true, nil
	return true
}

// cancel drops everything the SDK writes from now on; what was held (the
// stream's start) goes out, so the client reads a stream that ends without
// a response.
func (s *sdkWriter) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.releaseLocked()
		s.closed = true
	}
}

// finish writes the JSON-RPC error for a plain-text refusal of the SDK,
// and anything still held, once the SDK handler has returned.
func (s *sdkWriter) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plain != nil {
		s.writePlainAsJSON()
		return
	}
	if !s.closed {
		s.releaseLocked()
	}
}

func (s *sdkWriter) writePlainAsJSON() {
	h := s.w.Header()
	delete(h, "X-Content-Type-Options")
	for _, k := range []string{"Connection", "Content-Type", "Cache-Control"} {
		delete(h, k)
	}
	msg := strings.TrimSpace(s.plain.String())
	if msg == "" {
		msg = http.StatusText(s.status)
	}
	ref := refuse(s.status, plainCode(s.status), msg)
	ref.id = s.id
	writeRefusal(s.w, ref, plainData(s.status))
	s.sent, s.closed = true, true
}

// plainCode is the JSON-RPC code of an SDK refusal with HTTP status.
func plainCode(status int) int {
	switch status {
	case http.StatusForbidden:
		return codeForbidden
	case http.StatusInternalServerError:
		return codeInternal
	}
	return codeInvalidRequest
}

// plainData names the protocol code where the status says it.
func plainData(status int) *errorData {
	if status == http.StatusNotFound {
		return &errorData{Code: "session_expired"}
	}
	return nil
}

// primeEvent starts the SDK's priming event (an id and empty data): the
// first event of a resumable stream.
var primeEvent = []byte("event: prime\n")

// getStreamStart is what the SDK writes first on a GET stream (a comment,
// so that proxies pass the headers on); the gate adds the retry field.
var (
	getStreamStart          = []byte(": ok\n\n")
	getStreamStartWithRetry = []byte(": ok\n\nretry: " + sseRetry + "\n\n")
)

// withRetry adds retry: to the SDK's priming event, which carries only an
// id: a client that lost the stream waits sseRetry before resuming.
func withRetry(b []byte) []byte {
	if !bytes.HasPrefix(b, primeEvent) || bytes.Contains(b, []byte("\nretry:")) {
		return b
	}
	i := bytes.Index(b, []byte("\ndata:"))
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+len("\nretry: ")+len(sseRetry))
	out = append(append(append(out, b[:i]...), "\nretry: "+sseRetry...), b[i:]...)
	return out
}
