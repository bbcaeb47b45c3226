package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config is the `mcp` block of the wikigate directive.
type Config struct {
	// Enabled mounts the endpoint; the zero Config serves nothing, so an
	// operator opts in to a second front door.
	Enabled bool
	// Path is where the endpoint lives (default /mcp). The RFC 9728
	// metadata is served at /.well-known/oauth-protected-resource and at
	// that path suffixed with Path.
	Path string
	// AllowedOrigins lists the browser origins (scheme://host[:port], or
	// scheme://host:* for any port) allowed to call the endpoint. A request
	// without Origin (every non-browser client) is allowed; any other
	// Origin is refused, which is the DNS-rebinding protection the MCP
	// transport requires.
	AllowedOrigins []string
	// AllowedHosts are names besides localhost and loopback addresses that
	// a request reaching the gate on a loopback address may carry in Host:
	// the public name a TLS terminator or balancer on the same machine
	// passes on. Any other name is refused there (DNS-rebinding protection;
	// hostPolicy). Requests on other addresses are not affected.
	AllowedHosts []string
	// AuthorizationServers are the OAuth issuers clients get tokens from
	// (by default the agent_jwt issuers), listed in the metadata.
	AuthorizationServers []string
	// Resource is this protected resource's identifier, the audience the
	// tokens must be issued for (e.g. https://wiki.example.com/mcp). Empty:
	// derived from the request's scheme, host and Path.
	Resource string
	// Scopes are advertised as scopes_supported and in the challenge.
	Scopes []string
	// SessionIdleTimeout closes a session (2025-11-25, 2025-06-18) that
	// saw no request for this long (default 30m).
	SessionIdleTimeout time.Duration
	// MaxSessionsPerCaller caps open sessions per identity (anonymous
	// callers: per client address, ClientIP) so one caller cannot exhaust
	// memory (default 16). An initialize past it closes the caller's least
	// recently used idle session; it is refused only while all are busy.
	MaxSessionsPerCaller int
	// MaxBodyBytes caps one POSTed message (default 1 MiB; tool arguments
	// are small, the HTTP routes cap theirs similarly).
	MaxBodyBytes int64
	// PagesBaseURL resolves the relative page URLs of citations into the
	// absolute URIs resource_link content needs (e.g. the docs site's
	// https://wiki.example.com). Empty: URLs are passed as they are.
	PagesBaseURL string
	// ClientIP names the address an anonymous caller's sessions are
	// counted against (MaxSessionsPerCaller). The Caddy module passes
	// Caddy's client IP, which honours the server's trusted_proxies, so a
	// gate behind a TLS terminator counts readers, not the terminator.
	// Nil or "": the connection's remote address.
	ClientIP func(r *http.Request) string
}

// Defaults of Config.
const (
	DefaultPath                 = "/mcp"
	DefaultSessionIdleTimeout   = 30 * time.Minute
	DefaultMaxSessionsPerCaller = 16
	DefaultMaxBodyBytes         = 1 << 20
)

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.SessionIdleTimeout == 0 {
		c.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if c.MaxSessionsPerCaller == 0 {
		c.MaxSessionsPerCaller = DefaultMaxSessionsPerCaller
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return c
}

// Validate reports a configuration an operator must fix, at start-up rather
// than on the first request.
func (c Config) Validate() error {
	if !strings.HasPrefix(c.Path, "/") || strings.HasSuffix(c.Path, "/") && c.Path != "/" {
		return fmt.Errorf("mcp path %q must start with / and not end with /", c.Path)
	}
	for _, o := range c.AllowedOrigins {
		if _, err := parseOriginPattern(o); err != nil {
			return err
		}
	}
	for _, s := range c.AllowedHosts {
		if err := checkAllowedHost(s); err != nil {
			return err
		}
	}
	for _, s := range c.AuthorizationServers {
		if err := checkAbsoluteURL("authorization server", s); err != nil {
			return err
		}
	}
	if c.Resource != "" {
		if err := checkAbsoluteURL("resource", c.Resource); err != nil {
			return err
		}
	}
	if c.PagesBaseURL != "" {
		if err := checkAbsoluteURL("pages base URL", c.PagesBaseURL); err != nil {
			return err
		}
	}
	for _, s := range c.Scopes {
		if !validScopeToken(s) {
			return fmt.Errorf("mcp scope %q is not an OAuth scope token (RFC 6749 §3.3)", s)
		}
	}
	if c.SessionIdleTimeout < 0 || c.MaxSessionsPerCaller < 0 || c.MaxBodyBytes < 0 {
		return fmt.Errorf("mcp session idle timeout, max sessions per caller and max body bytes must not be negative")
	}
	return nil
}

func checkAbsoluteURL(what, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("mcp %s %q must be an absolute http(s) URL without a fragment", what, s)
	}
	return nil
}

// validScopeToken is RFC 6749's scope-token: printable ASCII without space,
// quote or backslash, which also keeps the WWW-Authenticate quoting intact.
func validScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
