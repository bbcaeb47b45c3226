package devmeili

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// LoggedRequest is one request as the development server saw it, so tests
// and developers can check what wikigate actually sent to "Meilisearch":
// which credential kind, which index, query and filters. It never holds a
// secret: Auth is the kind of credential only.
type LoggedRequest struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Auth is "master", "api_key", "tenant_token", "none" or "invalid".
	Auth  string `json:"auth"`
	Index string `json:"index,omitempty"`
	Query string `json:"query,omitempty"`
	// Filter is the request's filter as JSON text ("" when absent).
	Filter string `json:"filter,omitempty"`
	// TenantFilter is the tenant token's searchRules filter as JSON text.
	TenantFilter string `json:"tenantFilter,omitempty"`
	Status       int    `json:"status"`
}

// requestLog is a bounded ring of the most recent requests.
type requestLog struct {
	mu    sync.Mutex
	ring  []LoggedRequest
	start int // index of the oldest entry
	n     int
}

func newRequestLog(size int) *requestLog { return &requestLog{ring: make([]LoggedRequest, size)} }

func (l *requestLog) add(r LoggedRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n < len(l.ring) {
		l.ring[(l.start+l.n)%len(l.ring)] = r
		l.n++
		return
	}
	l.ring[l.start] = r
	l.start = (l.start + 1) % len(l.ring)
}

// snapshot returns the entries oldest first.
func (l *requestLog) snapshot() []LoggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LoggedRequest, l.n)
	for i := range out {
		out[i] = l.ring[(l.start+i)%len(l.ring)]
	}
	return out
}

func (l *requestLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start, l.n = 0, 0
}

type recordKey struct{}

// recordOf returns the log entry being filled in for r.
func recordOf(r *http.Request) *LoggedRequest {
	if rec, ok := r.Context().Value(recordKey{}).(*LoggedRequest); ok {
		return rec
	}
	return &LoggedRequest{}
}

func withRecord(r *http.Request, rec *LoggedRequest) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
}

// statusRecorder remembers the status written, for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusRecorder) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
