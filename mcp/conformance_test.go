package mcp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// What the official conformance suite (@modelcontextprotocol/conformance,
// run by scripts/mcp-conformance.sh) checks beyond the SDK client's own
// behaviour, from the client's side.

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// dns-rebinding-protection: a page of the gate's own loopback origin may
// call the endpoint without being on the allow-list; a page whose Host and
// Origin both name another site (a rebinding page) may not, nor may another
// loopback origin or port.
func TestSameLoopbackOrigin(t *testing.T) {
	g := newFakeGate()
	g.publicRead = true
	_, srv := server(t, g, Config{})
	u, _ := url.Parse(srv.URL) // http://127.0.0.1:PORT
	port := u.Port()
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{u.Host, "http://" + u.Host, http.StatusOK},
		{"localhost:" + port, "http://localhost:" + port, http.StatusOK},
		{u.Host, "https://" + u.Host, http.StatusForbidden},                   // another scheme
		{u.Host, "http://localhost:" + port, http.StatusForbidden},            // another origin than the request's
		{u.Host, "http://127.0.0.1:1", http.StatusForbidden},                  // another port
		{"evil.example.com", "http://evil.example.com", http.StatusForbidden}, // rebinding
		{"evil.example.com:" + port, "http://evil.example.com:" + port, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(initBody))
		req.Host = c.host
		req.Header.Set("Origin", c.origin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %s, Origin %s: %d, want %d", c.host, c.origin, resp.StatusCode, c.want)
		}
		if c.want == http.StatusOK && resp.Header.Get("Access-Control-Allow-Origin") != c.origin {
			t.Errorf("Host %s, Origin %s: no CORS headers for the allowed origin", c.host, c.origin)
		}
	}
}

// server-sse-multiple-streams and server-sse-polling name 2025-03-26 in
// Mcp-Protocol-Version on a session they opened at 2025-11-25; a client
// that only knows 2025-03-26 negotiates it.
func TestRevision20250326(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "2025-11-25", nil)
	resp, body := post(t, srv, "POST", map[string]string{"Authorization": "Bearer agent:coder",
		"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-03-26"}, listBody)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"name":"search"`) {
		t.Errorf("tools/list naming 2025-03-26 on a session: %d %s", resp.StatusCode, body)
	}
	old := connect(t, srv, "agent:coder", "2025-03-26", nil)
	if got := old.InitializeResult().ProtocolVersion; got != "2025-03-26" {
		t.Errorf("negotiated %q, want 2025-03-26", got)
	}
	if names := toolNames(t, old); len(names) != 5 {
		t.Errorf("2025-03-26 session lists %v", names)
	}
	// Batches stay refused there too (one message per request).
	resp, body = post(t, srv, "POST", map[string]string{"Authorization": "Bearer agent:coder",
		"Mcp-Session-Id": old.ID(), "Mcp-Protocol-Version": "2025-03-26"}, "["+listBody+"]")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("batch on 2025-03-26: %d %s", resp.StatusCode, body)
	}
}
