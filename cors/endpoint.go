package cors

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Endpoint is the CORS of one endpoint whose Origin a check before it has
// already allowed: the MCP endpoint, whose allowed_origins mcp/origin.go
// enforces (docs/agents.md, "MCP"). A request with an Origin gets it back
// with the exposed response headers, and any OPTIONS is its preflight,
// answered 204; a request without Origin is no browser's and gets nothing.
type Endpoint struct {
	methods, headers, expose, maxAge string
}

// NewEndpoint joins the lists once: the methods and request headers a
// preflight allows, the response headers a page's script may read, and how
// long a browser may cache the preflight.
func NewEndpoint(methods, headers, expose []string, maxAge time.Duration) *Endpoint {
	return &Endpoint{
		methods: strings.Join(methods, ", "), headers: strings.Join(headers, ", "),
		expose: strings.Join(expose, ", "), maxAge: strconv.Itoa(int(maxAge / time.Second)),
	}
}

// Handle adds the CORS headers and answers a preflight. It reports whether
// it answered.
func (e *Endpoint) Handle(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", e.expose)
	if r.Method != http.MethodOptions {
		return false
	}
	writePreflight(w, e.methods, e.headers, e.maxAge)
	return true
}

// Middleware is Handle in front of next, for the route table: a preflight
// it answered stops there.
func (e *Endpoint) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !e.Handle(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// writePreflight answers a preflight: the allowed methods and request
// headers, how long to cache them, 204.
func writePreflight(w http.ResponseWriter, methods, headers, maxAge string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", headers)
	h.Set("Access-Control-Max-Age", maxAge)
	w.WriteHeader(http.StatusNoContent)
}
