package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// originPattern is one entry of the allow-list: an exact origin, or any port
// of a scheme and host (scheme://host:*), which local development needs
// because editors and inspectors pick their ports at random.
type originPattern struct {
	scheme, host, port string // port "*" matches any port, "" only none
}

func parseOriginPattern(s string) (originPattern, error) {
	anyPort := strings.HasSuffix(s, ":*")
	u, err := url.Parse(strings.TrimSuffix(s, ":*"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return originPattern{}, fmt.Errorf("mcp allowed origin %q must be scheme://host[:port] or scheme://host:*", s)
	}
	p := originPattern{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: u.Port()}
	if anyPort {
		if p.port != "" {
			return originPattern{}, fmt.Errorf("mcp allowed origin %q has two ports", s)
		}
		p.port = "*"
	}
	return p, nil
}

func (p originPattern) matches(o *url.URL) bool {
	return o.Scheme == p.scheme && strings.ToLower(o.Hostname()) == p.host &&
		(p.port == "*" || o.Port() == p.port)
}

// originPolicy decides the Origin header. Browsers always send it on a
// cross-site fetch, so refusing unknown origins stops a web page (including
// one reached by DNS rebinding) from driving a local or intranet gate with
// the user's network position.
type originPolicy []originPattern

// CheckOrigin refuses a request to the endpoint whose Origin originPolicy
// does not allow (403, JSON-RPC envelope); the route table puts it after
// CheckHost and before the endpoint's CORS, which then names the allowed
// origin back.
func (h *Handler) CheckOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.origins.allows(r) {
			writeRefusal(w, refuse(http.StatusForbidden, codeForbidden, "origin is not allowed"), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func newOriginPolicy(list []string) originPolicy {
	var pol originPolicy
	for _, s := range list {
		if p, err := parseOriginPattern(s); err == nil { // Validate reported errors
			pol = append(pol, p)
		}
	}
	return pol
}

func (pol originPolicy) allows(r *http.Request) bool {
	values := headerValues(r.Header, headerOrigin)
	if len(values) == 0 {
		return true
	}
	if len(values) > 1 {
		return false
	}
	o, err := url.Parse(values[0])
	if err != nil || o.Host == "" {
		return false // includes the opaque "null" origin
	}
	if sameLoopbackOrigin(o, r) {
		return true
	}
	for _, p := range pol {
		if p.matches(o) {
			return true
		}
	}
	return false
}

// sameLoopbackOrigin reports a page of the gate's own loopback origin: the
// Origin is exactly the scheme and Host the request was sent to, and that
// Host is a loopback name. Such a page is served by this server, so the
// browser already lets it read everything on the origin; a rebinding page
// cannot pass, because its Host is the attacker's name (which the SDK's
// loopback Host check also refuses on a loopback listener). A Host that is
// not loopback is never trusted this way: behind a site that answers any
// Host, Origin and Host would both be the attacker's.
func sameLoopbackOrigin(o *url.URL, r *http.Request) bool {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if o.Scheme != scheme || !strings.EqualFold(o.Host, r.Host) || o.Path != "" || o.User != nil {
		return false
	}
	return isLoopbackName(o.Hostname())
}
