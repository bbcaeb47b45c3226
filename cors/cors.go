// Package cors answers browsers' cross-origin checks, the gate's only CORS
// code: Policy for the routes a docs site calls (docs/docs-sites.md, CORS):
// only configured origins, only configured path prefixes (by default
// /answer/, never the agents' /agent/ unless named), built by the Caddy
// module from the cors block; Endpoint for the MCP endpoint, whose origins
// its own check allows. It is plain net/http.
package cors

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxAge is how long a browser may cache a preflight's answer.
const DefaultMaxAge = 10 * time.Minute

// DefaultPaths are the path prefixes CORS covers by default: the routes
// people call from a page.
var DefaultPaths = []string{"/answer/"}

// DefaultHeaders are the request headers a page may send: its SSO token,
// the JSON body's type, a session token, its own request id, the client
// name the meilisearch JS client always sends (the Meilisearch-compatible
// search routes), and the id of the last event a page read, to resume a
// dropped answer stream.
var DefaultHeaders = []string{"Authorization", "Content-Type", "X-Session-Token", "X-Request-Id", "X-Meilisearch-Client", "Last-Event-ID"}

// allowedMethods: the gate's people's routes are POST, but a page reads a
// session's history (GET /answer/sessions/{id}) and resumes a stream
// (GET /answer/streams/{id}) with a credential or Last-Event-ID header,
// which makes the browser ask first.
const allowedMethods = "GET, POST"

// exposed are the response headers a page's script may read: besides the
// request id and the auth challenge, the three fields every 429 carries
// (Retry-After, RateLimit, RateLimit-Policy), so a docs page can tell its
// reader how long to wait and which budget is spent, and the mark a
// feedback retry's replay carries (Idempotent-Replayed), so a page that
// retried a report can tell it was recorded once already, and where a
// dropped answer stream can be resumed (Wikigate-Stream-Url).
const exposed = "X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, Idempotent-Replayed, Wikigate-Stream-Url"

// Config is the cors block.
type Config struct {
	Origins     []string      // scheme://host[:port], exactly; "*" for any (not with credentials)
	Credentials bool          // allow cookies and Authorization from the page
	MaxAge      time.Duration // preflight cache; default DefaultMaxAge
	Headers     []string      // allowed request headers; default DefaultHeaders
	Paths       []string      // covered path prefixes; default DefaultPaths
}

// Policy is a Config ready to answer requests.
type Policy struct {
	origins     []string
	any         bool
	credentials bool
	maxAge      string
	headers     string
	paths       []string
}

// New compiles c. A nil Policy (no cors block) covers nothing.
func New(c Config) *Policy {
	p := &Policy{credentials: c.Credentials, paths: c.Paths}
	for _, o := range c.Origins {
		if o == "*" {
			p.any = true
			continue
		}
		p.origins = append(p.origins, strings.ToLower(strings.TrimRight(o, "/")))
	}
	if len(p.paths) == 0 {
		p.paths = DefaultPaths
	}
	maxAge := c.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	p.maxAge = strconv.Itoa(int(maxAge / time.Second))
	headers := c.Headers
	if len(headers) == 0 {
		headers = DefaultHeaders
	}
	p.headers = strings.Join(headers, ", ")
	return p
}

// Handle adds CORS headers to a covered request from an allowed origin,
// and answers preflights of covered paths itself: 204 with the allow
// headers for an allowed origin, 403 without any CORS header for another
// (the browser then refuses the call, and the gate never sees it). It
// reports whether it answered; other requests go on to the gate.
func (p *Policy) Handle(w http.ResponseWriter, r *http.Request) bool {
	if p == nil || !p.covers(r.URL.Path) {
		return false
	}
	origin := r.Header.Get("Origin")
	preflight := r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != ""
	h := w.Header()
	h.Add("Vary", "Origin")
	if !p.allows(origin) {
		if preflight {
			w.WriteHeader(http.StatusForbidden)
		}
		return preflight
	}
	p.allowOrigin(h, origin)
	if !preflight {
		h.Set("Access-Control-Expose-Headers", exposed)
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	writePreflight(w, allowedMethods, p.headers, p.maxAge)
	return true
}

// covers: path is under one of the prefixes, matched on whole segments,
// so a prefix written without its slash (/answer) covers /answer and
// /answer/… but never /answerx, a route the operator did not name.
func (p *Policy) covers(path string) bool {
	for _, prefix := range p.paths {
		if underPrefix(path, prefix) {
			return true
		}
	}
	return false
}

func underPrefix(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	return strings.HasSuffix(prefix, "/") || len(path) == len(prefix) || path[len(prefix)] == '/'
}

// allows: origin is one of the configured ones (scheme and host compared
// without case), or any origin is.
func (p *Policy) allows(origin string) bool {
	if origin == "" || origin == "null" {
		return false
	}
	return p.any || slices.Contains(p.origins, strings.ToLower(origin))
}

// allowOrigin names the origin back; with credentials it must be the
// origin itself, never "*".
func (p *Policy) allowOrigin(h http.Header, origin string) {
	if p.any && !p.credentials {
		h.Set("Access-Control-Allow-Origin", "*")
		return
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if p.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

// Middleware is Handle in front of next, for the route table
// (docs/architecture.md, "Routing"): a preflight it answered stops there.
// A nil Policy passes every request on untouched.
func (p *Policy) Middleware(next http.Handler) http.Handler {
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.Handle(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}
