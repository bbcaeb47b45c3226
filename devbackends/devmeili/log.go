package devmeili

import (
	"context"
	"net/http"
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
	// Traceparent is the request's W3C traceparent header (tracing).
	Traceparent string `json:"traceparent,omitempty"`
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
