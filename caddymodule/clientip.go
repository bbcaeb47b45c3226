package caddymodule

import (
	"net"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// clientIP is the address every per-address budget of the gate counts an
// anonymous caller against (the policy's rate limits, people's feedback,
// open streams, MCP sessions): Caddy's client IP, which is the connection's
// address unless the server's trusted_proxies names the peer as a proxy,
// in which case it is the address that proxy forwarded (docs/operators.md "Behind a
// TLS terminator"). The plain packages cannot read Caddy's variables, so
// the module hands them this function.
func clientIP(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
