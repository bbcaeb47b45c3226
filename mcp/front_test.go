package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// post sends one raw request to the endpoint as a client would; hdr's
// "Host" sets the request's Host.
func post(t *testing.T, srv *httptest.Server, method string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v // net/http sends Request.Host, not a Host entry of Header
		} else if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// rpcErr reads a JSON-RPC error body.
func rpcErr(t *testing.T, body string) (code int, msg, data string) {
	t.Helper()
	var r struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("not a JSON-RPC error: %q", body)
	}
	return r.Error.Code, r.Error.Message, r.Error.Data.Code
}

const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// A session opened by one agent is refused to another, and to nobody.
func TestSessionBoundToIdentity(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "2025-06-18", nil)
	hdr := map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-06-18", "Authorization": "Bearer agent:ops"}
	resp, body := post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("other identity: %d %s", resp.StatusCode, body)
	}
	if _, _, data := rpcErr(t, body); data != "session_forbidden" {
		t.Errorf("data code %q", data)
	}
	hdr["Authorization"] = ""
	if resp, body := post(t, srv, "POST", hdr, listBody); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no credential: %d %s", resp.StatusCode, body)
	}
	if g.calls.Load() != 0 {
		t.Errorf("gate reached %d times", g.calls.Load())
	}
	for _, m := range []string{"GET", "DELETE"} {
		hdr["Authorization"] = "Bearer agent:ops"
		if resp, _ := post(t, srv, m, hdr, ""); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s by another identity: %d", m, resp.StatusCode)
		}
	}
	// the owner still has its session
	if names := toolNames(t, cs); len(names) != 5 {
		t.Errorf("owner lost its session: %v", names)
	}
	if !g.hasEvent(EventSessionRefused) || !g.hasEvent(EventSessionOpened) {
		t.Errorf("events %+v", g.events)
	}
}

// An anonymous session in public-read answers anonymous callers only.
func TestAnonymousSessionNotForAgents(t *testing.T) {
	g := newFakeGate()
	g.publicRead = true
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "", "2025-11-25", nil)
	if names := toolNames(t, cs); strings.Join(names, ",") != "search,ask" {
		t.Errorf("anonymous tools %v", names)
	}
	resp, _ := post(t, srv, "POST", map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25", "Authorization": "Bearer agent:coder"}, listBody)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("agent on anonymous session: %d", resp.StatusCode)
	}
}

// A browser page from another origin cannot drive the endpoint.
func TestForeignOriginRefused(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{AllowedOrigins: []string{"https://docs.example.com", "http://localhost:*"}})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for origin, want := range map[string]int{
		"https://evil.example":          http.StatusForbidden,
		"null":                          http.StatusForbidden,
		"https://docs.example.com":      http.StatusOK,
		"http://localhost:5173":         http.StatusOK,
		"https://docs.example.com:8443": http.StatusForbidden,
	} {
		resp, body := post(t, srv, "POST", map[string]string{"Origin": origin, "Authorization": "Bearer agent:coder"}, init)
		if resp.StatusCode != want {
			t.Errorf("Origin %s: %d, want %d (%s)", origin, resp.StatusCode, want, body)
		}
	}
	resp, _ := post(t, srv, "POST", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer agent:coder"}, init)
	if resp.StatusCode != http.StatusForbidden || g.authCalls.Load() != 2 {
		t.Errorf("foreign origin reached authentication (%d calls)", g.authCalls.Load())
	}
}

// Without a credential (authenticated-read) the client gets the OAuth
// challenge, and the metadata it names is RFC 9728 JSON.
func TestUnauthorizedChallengeAndMetadata(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{AuthorizationServers: []string{"https://login.example.com"}, Scopes: []string{"wiki.read"}})
	resp, body := post(t, srv, "POST", nil, listBody)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if _, _, data := rpcErr(t, body); data != "unauthorized" {
		t.Errorf("data %q", data)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	m := regexp.MustCompile(`^Bearer resource_metadata="([^"]+)", scope="wiki.read"$`).FindStringSubmatch(challenge)
	if m == nil {
		t.Fatalf("WWW-Authenticate %q", challenge)
	}
	if m[1] != srv.URL+"/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("resource_metadata %q", m[1])
	}
	// a refused token adds error="invalid_token" (RFC 6750 §3.1)
	resp, _ = post(t, srv, "POST", map[string]string{"Authorization": "Bearer stale"}, listBody)
	if !strings.HasSuffix(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("refused token challenge %q", resp.Header.Get("WWW-Authenticate"))
	}
	for _, u := range []string{m[1], srv.URL + "/.well-known/oauth-protected-resource"} {
		resp, err := srv.Client().Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var md oauthex.ProtectedResourceMetadata
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %v %s", u, err, resp.Header.Get("Content-Type"))
		}
		if md.Resource != srv.URL+"/mcp" || strings.Join(md.AuthorizationServers, ",") != "https://login.example.com" ||
			strings.Join(md.ScopesSupported, ",") != "wiki.read" || strings.Join(md.BearerMethodsSupported, ",") != "header" {
			t.Errorf("%s: %+v", u, md)
		}
	}
}

// Malformed messages are refused before the gate is asked anything.
func TestRefusedBeforeGate(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	auth := "Bearer agent:coder"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`
	cases := []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   int
	}{
		{"batch", nil, `[` + call + `]`, 400, codeInvalidRequest},
		{"batch with space", nil, " \n[" + call + `]`, 400, codeInvalidRequest},
		{"text/plain", map[string]string{"Content-Type": "text/plain"}, call, 415, codeInvalidRequest},
		{"form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, call, 415, codeInvalidRequest},
		{"not JSON", nil, `tools/call search`, 400, codeParseError},
		{"two messages", nil, call + call, 400, codeParseError},
		{"jsonrpc 1.0", nil, strings.Replace(call, `"2.0"`, `"1.0"`, 1), 400, codeInvalidRequest},
		{"object id", nil, strings.Replace(call, `"id":2`, `"id":{"a":1}`, 1), 400, codeInvalidRequest},
		{"unknown member", nil, strings.Replace(call, `"id":2`, `"id":2,"Method":"tools/list"`, 1), 400, codeInvalidRequest},
		{"duplicate method", nil, strings.Replace(call, `"id":2`, `"id":2,"method":"tools/list"`, 1), 400, codeParseError},
		{"look-alike name", nil, strings.Replace(call, `"name":"search"`, `"name":"search","NAME":"ask"`, 1), 400, codeInvalidParams},
		{"method mismatch (stateless)", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "search"}, call, 400, codeHeaderMismatch},
		{"name mismatch (stateless)", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"}, call, 400, codeHeaderMismatch},
		{"method mismatch (session revision)", map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Method": "tools/list"}, call, 400, codeHeaderMismatch},
		{"name on a method without one", map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "search"}, listBody, 400, codeHeaderMismatch},
		{"no session", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, call, 400, codeInvalidRequest},
		{"unknown session", map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "nope"}, call, 404, codeInvalidRequest},
	}
	for _, c := range cases {
		hdr := map[string]string{"Authorization": auth}
		for k, v := range c.hdr {
			hdr[k] = v
		}
		resp, body := post(t, srv, "POST", hdr, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, resp.StatusCode, c.status, body)
			continue
		}
		if code, _, _ := rpcErr(t, body); code != c.code {
			t.Errorf("%s: code %d, want %d", c.name, code, c.code)
		}
	}
	if g.calls.Load() != 0 || g.toolCalls.Load() != 0 {
		t.Errorf("the gate was asked: %d calls, %d tool lists", g.calls.Load(), g.toolCalls.Load())
	}
}

// A browser client from an allowed origin gets its preflight and can read
// the session id; GET on the stateless revision is 405.
func TestCORSAndStatelessGET(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{AllowedOrigins: []string{"https://docs.example.com"}})
	resp, _ := post(t, srv, "OPTIONS", map[string]string{"Origin": "https://docs.example.com", "Access-Control-Request-Method": "POST"}, "")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://docs.example.com" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := post(t, srv, "OPTIONS", map[string]string{"Origin": "https://evil.example"}, ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign preflight: %d", resp.StatusCode)
	}
	resp, _ = post(t, srv, "GET", map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2026-07-28"}, "")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("stateless GET: %d", resp.StatusCode)
	}
}
