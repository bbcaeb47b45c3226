package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// withHost sends every request of a client with Host set to host, as a TLS
// terminator on the gate's machine does when it passes the public name on.
type withHost struct {
	host string
	base http.RoundTripper
}

func (h withHost) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = h.host
	return h.base.RoundTrip(r)
}

// On a loopback listener a Host that is not loopback is refused before
// authentication, with the protocol's envelope, on every revision's path
// (the stateless fast path, a session's, the SDK's initialize).
func TestForeignHostOnLoopbackRefused(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	stateless := map[string]string{"Authorization": "Bearer agent:coder", "Host": "wiki.example.com",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	for name, c := range map[string]struct {
		hdr  map[string]string
		body string
	}{
		"stateless tools/list": {stateless, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaTriple + `}}`},
		"initialize":           {map[string]string{"Authorization": "Bearer agent:coder", "Host": "wiki.example.com:8443"}, initBody},
	} {
		resp, body := post(t, srv, "POST", c.hdr, c.body)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `"code":-32003`) || !strings.Contains(body, "allowed_hosts") {
			t.Errorf("%s: %d %s, want 403 with the error envelope naming allowed_hosts", name, resp.StatusCode, body)
		}
	}
	if n := g.authCalls.Load(); n != 0 {
		t.Errorf("a refused Host reached authentication %d times", n)
	}
}

// allowed_hosts lets a same-machine terminator's public name through on
// every revision, and only that name.
func TestAllowedHostServes(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{AllowedHosts: []string{"Wiki.Example.com"}})
	for _, revision := range []string{"", "2025-11-25", "2025-06-18"} {
		cs := dialHost(t, srv, "wiki.example.com:443", revision)
		if names := toolNames(t, cs); len(names) != 5 {
			t.Errorf("revision %q through the allowed name lists %v", revision, names)
		}
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "search",
			Arguments: map[string]any{"query": "memory", "scope": map[string]any{"projects": []string{"kunora-kgent"}}}})
		if err != nil || res.IsError {
			t.Errorf("revision %q: search through the allowed name: %v %+v", revision, err, res)
		}
	}
	resp, body := post(t, srv, "POST", map[string]string{"Authorization": "Bearer agent:coder", "Host": "other.example.com"}, initBody)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a name not listed: %d %s", resp.StatusCode, body)
	}
}

func TestAllowedHostValidation(t *testing.T) {
	for _, bad := range []string{"", "https://wiki.example.com", "wiki.example.com:443", "*.example.com", "wiki.example.com/mcp"} {
		if err := (Config{AllowedHosts: []string{bad}}).WithDefaults().Validate(); err == nil {
			t.Errorf("allowed host %q accepted", bad)
		}
	}
	if err := (Config{AllowedHosts: []string{"wiki.example.com", "10.0.0.7"}}).WithDefaults().Validate(); err != nil {
		t.Error(err)
	}
}

func dialHost(t *testing.T, srv *httptest.Server, host, revision string) *mcpsdk.ClientSession {
	t.Helper()
	cs, err := dialVia(srv, withHost{host, srv.Client().Transport}, "agent:coder", revision, nil)
	if err != nil {
		t.Fatalf("connect through Host %s (%q): %v", host, revision, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// The metadata documents keep the endpoint's Host rule: without a
// configured resource they name the Host they were asked on, so a foreign
// name on a loopback gate is refused and an allowed one is named.
func TestMetadataKeepsHostRule(t *testing.T) {
	_, srv := server(t, newFakeGate(), Config{AllowedHosts: []string{"wiki.example.com"}})
	for host, want := range map[string]int{"evil.example.com": 403, "wiki.example.com": 200, "localhost:8080": 200} {
		req, _ := http.NewRequest("GET", srv.URL+"/.well-known/oauth-protected-resource/mcp", nil)
		req.Host = host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, want)
		}
		if want == 200 && !strings.Contains(string(body), `"resource":"http://`+host+`/mcp"`) {
			t.Errorf("Host %s: %s", host, body)
		}
		if want == 403 && (strings.Contains(string(body), host) || !strings.Contains(string(body), "allowed_hosts")) {
			t.Errorf("Host %s refused with %q", host, body)
		}
	}
}
