package mcp

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostPolicy is the MCP transport's DNS-rebinding rule for a gate reached
// on a loopback address (the SDK's localhost protection): the request must
// name a loopback Host, because a page that rebinds its own name to
// 127.0.0.1 still sends that name. The operator may add names (Config
// AllowedHosts): a TLS terminator or balancer on the same machine reaches
// the gate over 127.0.0.1 and passes on the public name, which an attacker
// cannot make a victim's browser resolve to the victim's loopback.
//
// The gate checks it itself, as middleware the route table puts before the
// endpoint (CheckHost) and its metadata documents (CheckMetadataHost), so
// a refusal comes before authentication and is the protocol's error
// envelope rather than the SDK's plain text, and the SDK's own check is off
// (it would refuse the allowed names).
type hostPolicy map[string]struct{}

// hostRefused is the message of a refused Host, on the endpoint and its
// metadata documents.
const hostRefused = "Host is not allowed on a loopback address (DNS-rebinding protection): list the name in the mcp block's allowed_hosts"

// CheckHost refuses a request to the endpoint whose Host hostPolicy does
// not allow: 403 with the JSON-RPC error envelope naming allowed_hosts.
func (h *Handler) CheckHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hosts.allows(r) {
			writeRefusal(w, refuse(http.StatusForbidden, codeForbidden, hostRefused), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// CheckMetadataHost is CheckHost for the metadata documents, which are no
// JSON-RPC: the refusal is plain text. Without a configured Resource the
// document names the Host it was asked on, which on a loopback gate must be
// a name the gate answers to.
func (h *Handler) CheckMetadataHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hosts.allows(r) {
			http.Error(w, hostRefused, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func newHostPolicy(names []string) hostPolicy {
	p := hostPolicy{}
	for _, n := range names {
		p[strings.ToLower(n)] = struct{}{}
	}
	return p
}

// allows reports whether r may be served.
func (p hostPolicy) allows(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !localIsLoopback(local) {
		return true
	}
	host := hostName(r.Host)
	if isLoopbackName(host) {
		return true
	}
	_, listed := p[strings.ToLower(host)]
	return listed
}

// localIsLoopback reads the listener's address without formatting it on
// every request.
func localIsLoopback(local net.Addr) bool {
	if tcp, ok := local.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	return isLoopbackName(hostName(local.String()))
}

// hostName is the host of a host[:port], brackets removed.
func hostName(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return strings.Trim(addr, "[]")
}

func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// checkAllowedHost rejects what could never match a Host header's name: a
// port, a scheme, a path, a wildcard.
func checkAllowedHost(s string) error {
	if s == "" || strings.ContainsAny(s, ":/@*?# \t") {
		return fmt.Errorf("mcp allowed host %q must be a host name without scheme, port or wildcard (e.g. wiki.example.com)", s)
	}
	return nil
}
