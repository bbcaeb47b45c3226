package gateway

import (
	"net"
	"net/http"
)

// callerKey names a caller for every per-caller budget (the policy's rate
// limits, people's feedback, open streams): the authenticated identity, or
// for anonymous readers (who share no identity) their address as Caddy
// sees it behind its trusted proxies (StreamConfig.ClientIP).
func (g *Gateway) callerKey(r *http.Request, c *call) string {
	if !c.principal.Anonymous {
		return c.principal.Type + ":" + c.principal.ID
	}
	if g.cfg.Stream.ClientIP != nil {
		return "anonymous:" + g.cfg.Stream.ClientIP(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "anonymous:" + host
}
