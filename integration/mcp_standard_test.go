package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The MCP door held to the HTTP routes' standard (docs/agents.md,
// "MCP"), through Caddy with the real gateway.

const mcpStatelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// mcpSession initializes a 2025-11-25 session with raw requests and
// returns the headers that address it.
func mcpSession(t *testing.T, g *gate, auth string) map[string]string {
	t.Helper()
	hdr := map[string]string{"Authorization": auth}
	r := g.mcpPost(hdr, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r.Status != 200 || r.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	hdr["Mcp-Session-Id"], hdr["Mcp-Protocol-Version"] = r.Header.Get("Mcp-Session-Id"), "2025-11-25"
	if r := g.mcpPost(hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.Status != 202 {
		t.Fatalf("initialized: %d %s", r.Status, r.Body)
	}
	return hdr
}

// get_page takes exactly one of path and paths; its inputSchema says so
// without a top-level oneOf (which Anthropic's API refuses), and the gate
// still refuses both or neither with a clear invalid_request.
func TestMCPGetPageNeedsExactlyOneOf(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	cs := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "", nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		schema, _ := tool.InputSchema.(map[string]any)
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if _, ok := schema[k]; ok {
				t.Errorf("%s's inputSchema has a top-level %s", tool.Name, k)
			}
		}
	}
	path := "publish/system/components/kunora-kgent/index.md"
	for _, c := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"path": path, "paths": []string{path}}, "not both"},
		{map[string]any{}, "path or paths is required"},
	} {
		res := mcpCall(t, cs, "get_page", c.args)
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		structured(t, res, &e)
		if !res.IsError || e.Error.Code != "invalid_request" || !strings.Contains(e.Error.Message, c.says) {
			t.Errorf("get_page %v: isError %v %+v, want invalid_request saying %q", c.args, res.IsError, e.Error, c.says)
		}
	}
	if res := mcpCall(t, cs, "get_page", map[string]any{"path": path}); res.IsError {
		t.Errorf("get_page with path alone: %v", res.Content)
	}
}

// A rate-limited tools/call is 429 with Retry-After and the RateLimit
// headers of the HTTP route, from the same budget: MCP calls and HTTP
// calls of one agent spend one search-minute budget.
func TestMCPRateLimitedCallIs429(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: limitedPolicy(t, 3), extraOptions: mcpBlock})
	auth := "Bearer " + agentToken(t, "kunora-coding-agent")
	stateless := map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},%s}}`, id, mcpStatelessMeta)
	}
	if r := g.post("/agent/tools/search", map[string]string{"Authorization": auth}, `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("HTTP call: %d %s", r.Status, r.Body)
	}
	for id := 1; id <= 2; id++ {
		if r := g.mcpPost(stateless, call(id)); r.Status != 200 {
			t.Fatalf("MCP call %d: %d %s", id, r.Status, r.Body)
		}
	}
	session := mcpSession(t, g, auth)
	limited := []struct {
		name string
		hdr  map[string]string
		body string
	}{
		{"stateless", stateless, call(3)},
		{"session", session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"}}}`},
		{"session, progress token (SDK path)", session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},"_meta":{"progressToken":"p"}}}`},
	}
	for _, c := range limited {
		r := g.mcpPost(c.hdr, c.body)
		if r.Status != http.StatusTooManyRequests || !strings.Contains(string(r.Body), `"code":"rate_limited"`) || !strings.Contains(string(r.Body), `"jsonrpc":"2.0"`) {
			t.Errorf("%s: %d %s, want 429 with a JSON-RPC error rate_limited", c.name, r.Status, r.Body)
			continue
		}
		if r.Header.Get("Retry-After") == "" || !strings.Contains(r.Header.Get("RateLimit-Policy"), `"search-minute";q=3;w=60`) ||
			!strings.Contains(r.Header.Get("RateLimit"), `"search-minute";r=0;t=`) {
			t.Errorf("%s: 429 headers %v", c.name, r.Header)
		}
	}
	if r := g.post("/agent/tools/search", map[string]string{"Authorization": auth}, `{"question":"agent memory"}`); r.Status != 429 {
		t.Errorf("the HTTP route after MCP spent the budget: %d, want 429", r.Status)
	}
}

// A call cancelled with notifications/cancelled, or whose client hangs up,
// gets no response; its audit record says client_closed and the gate logs
// a hang-up at info level, never ragflow_unavailable or an error.
func TestMCPCancelledCallIsClientClosed(t *testing.T) {
	started := make(chan struct{}, 4)
	rag := stallingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/retrieval" {
			w.WriteHeader(http.StatusNotFound) // health probes
			return
		}
		started <- struct{}{}
		select { // stall until the gate gives up on the call
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	g, logFile := loggedGate(t, gateOptions{ragflowURL: rag, extraOptions: mcpBlock})
	auth := "Bearer " + agentToken(t, "kunora-coding-agent")
	session := mcpSession(t, g, auth)

	answered := make(chan response, 1)
	go func() {
		answered <- g.mcpPost(session, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","arguments":{"question":"agent memory"}}}`)
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the call never reached RAGFlow")
	}
	if r := g.mcpPost(session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`); r.Status != 202 {
		t.Fatalf("notifications/cancelled: %d %s", r.Status, r.Body)
	}
	r := <-answered
	if strings.Contains(string(r.Body), `"result"`) || strings.Contains(string(r.Body), `"error"`) {
		t.Errorf("the cancelled call was answered: %d %s", r.Status, r.Body)
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["endpoint"] == "/mcp" && l["jsonrpc_id"] == `"c1"` })
	if rec["result"] != "client_closed" || rec["tool"] != "ask" {
		t.Errorf("audit record of a cancelled call: %v", rec)
	}

	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.url+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":"h1","method":"tools/call","params":{"name":"ask","arguments":{"question":"agent memory"},`+mcpStatelessMeta+`}}`))
	for k, v := range map[string]string{"Authorization": auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"} {
		req.Header.Set(k, v)
	}
	go func() {
		<-started
		cancel()
	}()
	if resp, err := g.client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the call was answered; the hang-up was not tested")
	}
	rec = waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["endpoint"] == "/mcp" && l["jsonrpc_id"] == `"h1"` })
	if rec["result"] != "client_closed" {
		t.Errorf("audit record of a hang-up: %v", rec)
	}
	waitFor(t, "the info-level hang-up log", func() bool {
		for _, l := range gateLogLines(t, logFile) {
			if l["level"] == "info" && strings.Contains(fmt.Sprint(l["msg"]), "caller closed the connection") {
				return true
			}
		}
		return false
	})
	for _, l := range gateLogLines(t, logFile) {
		if l["level"] == "error" || strings.Contains(fmt.Sprint(l), "ragflow_unavailable") {
			t.Errorf("logged: %v", l)
		}
	}
}

// Refusals the SDK's transport used to write as plain text are JSON-RPC
// errors through Caddy too; prompts/list is answered (the server declares
// prompts: an empty list) and an undeclared capability is -32601.
func TestMCPRefusalsAreJSON(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	auth := "Bearer " + agentToken(t, "kunora-coding-agent")
	session := mcpSession(t, g, auth)
	noAccept := map[string]string{"Accept": "application/json"}
	for k, v := range session {
		noAccept[k] = v
	}
	cases := map[string]struct {
		hdr  map[string]string
		body string
	}{
		"no text/event-stream in Accept": {noAccept, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		"unknown protocol version": {map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "1999-01-01"},
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		"tools/call without id":          {session, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`},
		"Arguments":                      {session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","Arguments":{"question":"q"}}}`},
		"completion/complete undeclared": {session, `{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}`},
	}
	for name, c := range cases {
		r := g.mcpPost(c.hdr, c.body)
		body := string(r.Body)
		if i := strings.Index(body, "data: {"); i >= 0 { // an SSE answer: its message
			body = strings.TrimSpace(body[i+len("data: "):])
		}
		if !strings.HasPrefix(body, `{"jsonrpc":"2.0"`) || !strings.Contains(body, `"error":{"code":-32`) {
			t.Errorf("%s: %d %q, want a JSON-RPC error", name, r.Status, r.Body)
		}
	}
	if r := g.mcpPost(session, `{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}}`); !strings.Contains(string(r.Body), `"code":-32601`) {
		t.Errorf("completion/complete: %s, want -32601", r.Body)
	}
	if r := g.mcpPost(session, `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`); !strings.Contains(string(r.Body), `"prompts":[]`) {
		t.Errorf("prompts/list: %s, want an empty list", r.Body)
	}
}
