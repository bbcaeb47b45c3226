package mcp

import "net/http"

// CORS for the allowed origins only: a browser-based MCP client (an
// inspector, a docs-site assistant) must be able to read Mcp-Session-Id and
// the challenge, and to send the MCP headers. Requests without Origin are
// not browsers and get no CORS headers.
const (
	corsAllowHeaders  = "Authorization, X-Agent-Api-Key, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name"
	corsExposeHeaders = "Mcp-Session-Id, WWW-Authenticate"
)

// cors adds the response headers for an allowed Origin and answers a
// preflight. It reports whether the request was a preflight.
func cors(w http.ResponseWriter, r *http.Request) bool {
	origin := headerGet(r.Header, headerOrigin)
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
