package mcp

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK client's default revision is the stateless 2026-07-28: it
// discovers, lists with private, bounded caching and calls with no session.
func TestStatelessRevision(t *testing.T) {
	g := newFakeGate()
	g.expires = time.Now().Add(10 * time.Second)
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "", nil)
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("revision %q", got)
	}
	if cs.ID() != "" {
		t.Errorf("stateless revision got session %q", cs.ID())
	}
	res, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheScope != "private" || res.TTLMs <= 0 || res.TTLMs > 10000 {
		t.Errorf("cacheScope %q ttlMs %d: want private, bounded by the 10s credential", res.CacheScope, res.TTLMs)
	}
	out, err := cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "search", Arguments: map[string]any{"question": "q"}})
	if err != nil || out.IsError {
		t.Fatalf("call: %v %+v", err, out)
	}
	if m := g.lastMeta(); m.SessionID != "" || m.Revision != "2026-07-28" || m.RequestID == "" {
		t.Errorf("meta %+v", m)
	}
}

// ttlMs never outlives the policy's reload period nor the credential.
func TestTTL(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		policy  time.Duration
		expires time.Time
		want    int
	}{
		{30 * time.Second, time.Time{}, 30000},
		{30 * time.Second, now.Add(5 * time.Second), 5000},
		{30 * time.Second, now.Add(-time.Second), 0},
		{0, now.Add(time.Hour), 0},
	} {
		if got := ttlMs(c.policy, c.expires, now); got != c.want {
			t.Errorf("ttlMs(%v, %v) = %d, want %d", c.policy, c.expires.Sub(now), got, c.want)
		}
	}
}

// Raw 2026-07-28 requests: headers and body must agree, and a request
// without per-request authentication never reaches the gate.
func TestStatelessRawRequests(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	call := `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"search","arguments":{"question":"q"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	resp, body := post(t, srv, "POST", hdr, call)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"structuredContent"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if m := g.lastMeta(); m.RequestID != `"c1"` {
		t.Errorf("request id %q", m.RequestID)
	}
	delete(hdr, "Mcp-Method")
	hdr["Mcp-Method"] = ""
	if resp, body := post(t, srv, "POST", hdr, call); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("missing Mcp-Method: %d %s", resp.StatusCode, body)
	}
	hdr["Mcp-Method"], hdr["Authorization"] = "tools/call", ""
	if resp, _ := post(t, srv, "POST", hdr, call); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no credential: %d", resp.StatusCode)
	}
	if g.calls.Load() != 1 {
		t.Errorf("gate calls %d, want 1", g.calls.Load())
	}
}

// An unknown method is a JSON-RPC error, not a tool result, and the gate is
// not asked.
func TestUnknownMethod(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	body := `{"jsonrpc":"2.0","id":3,"method":"wiki/drop","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	resp, out := post(t, srv, "POST", map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "wiki/drop"}, body)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	if code, _, _ := rpcErr(t, out); code != -32601 {
		t.Errorf("code %d", code)
	}
	if g.calls.Load() != 0 || g.toolCalls.Load() != 0 {
		t.Error("gate asked")
	}
}

// A 2026-07-28 client listening (subscriptions/listen) hears list_changed
// after a reload: the stateless server cannot tell callers apart there, so
// every listener re-lists and gets its own list.
func TestStatelessListChanged(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{})
	var heard atomic.Int64
	cs := connect(t, srv, "agent:coder", "", &mcpsdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { heard.Add(1) }})
	g.setGrants("coder", "search")
	h.Refresh(ctxT(t))
	waitFor(t, func() bool { return heard.Load() >= 1 })
	if names := toolNames(t, cs); len(names) != 1 {
		t.Errorf("after reload: %v", names)
	}
}
