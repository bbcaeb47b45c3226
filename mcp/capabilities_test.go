package mcp

import (
	"net/http"
	"testing"
)

// Methods of capabilities the server does not declare (prompts, logging,
// completions, resource subscriptions) are -32601 Method not found, on a
// session and stateless (where SEP-2575 makes it HTTP 404); the SDK used to
// answer prompts/list with an empty list.
func TestUndeclaredCapabilitiesAreMethodNotFound(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	sid := openRawSession(t, srv, "2025-11-25")
	session := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	stateless := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless}
	methods := map[string]string{
		"prompts/list":        `{}`,
		"prompts/get":         `{"name":"x"}`,
		"logging/setLevel":    `{"level":"info"}`,
		"completion/complete": `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`,
		"resources/subscribe": `{"uri":"wiki://main/x.md"}`,
	}
	for method, params := range methods {
		resp, body := post(t, srv, "POST", session, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`)
		if code, msg, _ := rpcErr(t, sseMessage(body)); resp.StatusCode != http.StatusOK || code != -32601 {
			t.Errorf("session %s: %d, code %d %q; want 200 and -32601", method, resp.StatusCode, code, msg)
		}
		hdr := map[string]string{"Mcp-Method": method}
		for k, v := range stateless {
			hdr[k] = v
		}
		if method == "prompts/get" || method == "resources/subscribe" {
			continue // their Mcp-Name rules are the SDK's; the session case covers them
		}
		resp, body = post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","id":8,"method":"`+method+`","params":`+withMeta(params)+`}`)
		if code, msg, _ := rpcErr(t, sseMessage(body)); resp.StatusCode != http.StatusNotFound || code != -32601 {
			t.Errorf("stateless %s: %d, code %d %q; want 404 and -32601", method, resp.StatusCode, code, msg)
		}
	}
}

// withMeta adds the stateless _meta triple to a params object.
func withMeta(params string) string {
	if params == "{}" {
		return "{" + metaTriple + "}"
	}
	return params[:len(params)-1] + "," + metaTriple + "}"
}
