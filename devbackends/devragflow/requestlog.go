package devragflow

import (
	"net/http"
	"sync"
	"time"
)

// LoggedRequest is what the request log keeps of one request: never the
// key, the question or the prompt.
type LoggedRequest struct {
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Authorized bool      `json:"authorized"`
	// DatasetIDs are the dataset ids the request named (retrieval's
	// dataset_ids, or the dataset of a documents listing).
	DatasetIDs []string `json:"datasetIds,omitempty"`
	// Status is the HTTP status; Code the envelope code (0 when the body
	// has none, e.g. healthz).
	Status int `json:"status"`
	Code   int `json:"code"`
}

// requestLog is a bounded ring of LoggedRequest, so tests can assert what
// wikigate sent (e.g. exactly which dataset ids) without a proxy.
type requestLog struct {
	mu    sync.Mutex
	items []LoggedRequest
	next  int
	full  bool
}

func newRequestLog(size int) *requestLog { return &requestLog{items: make([]LoggedRequest, size)} }

func (l *requestLog) add(r LoggedRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items[l.next] = r
	l.next = (l.next + 1) % len(l.items)
	if l.next == 0 {
		l.full = true
	}
}

// snapshot returns the entries oldest first.
func (l *requestLog) snapshot() []LoggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LoggedRequest
	if l.full {
		out = append(out, l.items[l.next:]...)
	}
	out = append(out, l.items[:l.next]...)
	for i := range out {
		out[i].DatasetIDs = append([]string(nil), out[i].DatasetIDs...)
	}
	return out
}

func (l *requestLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.items)
	l.next, l.full = 0, false
}

// Requests returns the logged requests, oldest first.
func (s *Server) Requests() []LoggedRequest { return s.log.snapshot() }

// handleDevRequests serves GET (list) and DELETE (clear) /_dev/requests.
// These calls are not logged themselves, so the log shows only the traffic
// under test.
func (s *Server) handleDevRequests(w http.ResponseWriter, r *http.Request, _ *LoggedRequest) {
	if r.Method == http.MethodDelete {
		s.log.clear()
		writeJSON(w, http.StatusOK, map[string]any{"requests": []LoggedRequest{}})
		return
	}
	reqs := s.log.snapshot()
	if reqs == nil {
		reqs = []LoggedRequest{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"requests": reqs})
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
