package mcp

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// tracingGate is fakeGate that traces as the gateway does (MessageTracer),
// keeping what each traced request told it and how it ended.
type tracingGate struct {
	*fakeGate
	mu    sync.Mutex
	msgs  []TracedMessage
	ended []MessageEnd
}

func (g *tracingGate) TraceMessage(r *http.Request, m TracedMessage) (*http.Request, func(MessageEnd)) {
	g.mu.Lock()
	g.msgs = append(g.msgs, m)
	g.mu.Unlock()
	return r, func(end MessageEnd) {
		g.mu.Lock()
		g.ended = append(g.ended, end)
		g.mu.Unlock()
	}
}

// last is the last request traced and how it ended.
func (g *tracingGate) last(t *testing.T) (TracedMessage, MessageEnd) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.msgs) == 0 || len(g.ended) != len(g.msgs) {
		t.Fatalf("traced %d requests, ended %d", len(g.msgs), len(g.ended))
	}
	return g.msgs[len(g.msgs)-1], g.ended[len(g.ended)-1]
}

const metaTP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// TestRequestsAreTraced: initialize, tools/list and tools/call each get a
// span from the gate (method, target, JSON-RPC id, session, the trace
// context of params._meta), initialize's ending with the session it
// opened; a notification gets none; a tools/call's _meta trace context
// also reaches the call on CallMeta.HTTP.
func TestRequestsAreTraced(t *testing.T) {
	g := &tracingGate{fakeGate: newFakeGate()}
	h, err := New(Config{Enabled: true}, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	hdr := map[string]string{"Authorization": "Bearer agent:coder"}
	resp, body := post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},`+
		`"_meta":{"traceparent":"`+metaTP+`","tracestate":"v=1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	hdr["Mcp-Session-Id"], hdr["Mcp-Protocol-Version"] = session, "2025-11-25"
	if resp, body := post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","id":"l2","method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},"_meta":{"traceparent":"`+metaTP+`"}}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
	}

	g.mu.Lock()
	msgs, ended := g.msgs, g.ended
	g.mu.Unlock()
	if len(msgs) != 3 || len(ended) != 3 {
		t.Fatalf("traced %+v ended %+v, want initialize, tools/list and tools/call", msgs, ended)
	}
	if m := msgs[0]; m.Method != "initialize" || m.RequestID != "1" || m.SessionID != "" || m.TraceParent != metaTP || m.TraceState != "v=1" || ended[0] != (MessageEnd{SessionID: session}) {
		t.Errorf("initialize traced as %+v, ended %+v (want session %q)", m, ended[0], session)
	}
	if m := msgs[1]; m.Method != "tools/list" || m.RequestID != `"l2"` || m.SessionID != session || m.Revision != "2025-11-25" || m.TraceParent != "" {
		t.Errorf("tools/list traced as %+v", m)
	}
	if m := msgs[2]; m.Method != "tools/call" || m.Target != "search" || m.RequestID != "3" || m.TraceParent != metaTP || ended[2] != (MessageEnd{SessionID: session}) {
		t.Errorf("tools/call traced as %+v, ended %+v", m, ended[2])
	}
	if tp, _ := MessageTraceContext(g.lastMeta().HTTP); tp != metaTP {
		t.Errorf("the tools/call reached the gate with _meta traceparent %q, want %q", tp, metaTP)
	}
}

// TestTracedRequestsEndWithTheirAnswer: a traced request's span ends with
// what its client was answered, whichever layer answered: a JSON-RPC error
// (the SDK's unknown tool and unknown method, the front's 401 before the
// message is read, a rate limit's 429) with its code and message, a
// tools/call's isError result (on the SDK path and on the fast path) as a
// tool error with its text, and a success as nothing.
func TestTracedRequestsEndWithTheirAnswer(t *testing.T) {
	g := &tracingGate{fakeGate: newFakeGate()}
	h, err := New(Config{Enabled: true}, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	hdr := map[string]string{"Authorization": "Bearer agent:ops"}
	resp, body := post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	hdr["Mcp-Session-Id"], hdr["Mcp-Protocol-Version"] = session, "2025-11-25"
	post(t, srv, http.MethodPost, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	}
	stateless := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	statelessHdr := func(method, name string) map[string]string {
		return map[string]string{"Authorization": "Bearer agent:ops", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name}
	}
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		want   MessageEnd
		says   string // in the message
	}{
		{"a granted call (SDK path)", hdr, call(2, "search", `{"question":"q"}`), 200, MessageEnd{SessionID: session}, ""},
		{"an ungranted call (SDK path)", hdr, call(3, "ask", `{"question":"q"}`), 200, MessageEnd{SessionID: session, ToolError: true}, "forbidden_tool: "},
		{"a rate-limited call", hdr, call(4, "search", `{"question":"limited"}`), 429, MessageEnd{SessionID: session, RPCCode: codeRateLimited}, "rate limit"},
		{"an unknown tool", hdr, call(5, "nope", `{}`), 200, MessageEnd{SessionID: session, RPCCode: codeInvalidParams}, "nope"},
		{"an unknown method", hdr, `{"jsonrpc":"2.0","id":6,"method":"wiki/drop","params":{}}`, 400, MessageEnd{SessionID: session, RPCCode: codeInvalidRequest}, "wiki/drop"},
		{"a scope outside the grant (fast path)", statelessHdr("tools/call", "search"),
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"question":"q","scope":{"projects":["other"]}},` + stateless + `}}`,
			200, MessageEnd{ToolError: true}, "forbidden_scope: "},
		{"an unknown method (stateless)", statelessHdr("wiki/drop", ""), `{"jsonrpc":"2.0","id":8,"method":"wiki/drop","params":{` + stateless + `}}`,
			404, MessageEnd{RPCCode: codeMethodNotFound}, "wiki/drop"},
	} {
		resp, body := post(t, srv, http.MethodPost, c.hdr, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, body)
			continue
		}
		_, end := g.last(t)
		msg := end.Message
		end.Message = ""
		if end != c.want || !strings.Contains(msg, c.says) || (c.want != MessageEnd{SessionID: c.want.SessionID}) == (msg == "") {
			t.Errorf("%s: ended %+v message %q, want %+v saying %q (answered %s)", c.name, end, msg, c.want, c.says, body)
		}
	}

	calls := g.calls.Load()
	bad := statelessHdr("tools/call", "search")
	bad["Authorization"] = "Bearer expired"
	if resp, body := post(t, srv, http.MethodPost, bad, call(9, "search", `{"question":"q"}`)); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token: %d %s", resp.StatusCode, body)
	}
	m, end := g.last(t)
	if m.Method != "tools/call" || m.Target != "search" || m.Revision != "2026-07-28" || end != (MessageEnd{RPCCode: codeUnauthorized, Message: "token expired"}) {
		t.Errorf("bad token traced as %+v, ended %+v", m, end)
	}
	if g.calls.Load() != calls {
		t.Error("a refused credential reached the gate")
	}
}

// TestRPCErrorIn reads the JSON-RPC error out of a response body as the
// client would: a JSON body, or an SSE stream's event after the priming
// event; a result, even one holding an "error" member, is none.
func TestRPCErrorIn(t *testing.T) {
	for _, c := range []struct {
		body, contentType string
		code              int
	}{
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool"}}`, "application/json", -32602},
		{"event: prime\nid: 1\nretry: 1000\ndata: \n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n\n", "text/event-stream", -32601},
		{`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"error":{"code":"policy_denied"}},"isError":true}}`, "application/json", 0},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"tru`, "application/json", 0},
		{"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n", "text/event-stream", 0},
	} {
		e := rpcErrorIn([]byte(c.body), c.contentType)
		if got := 0; e != nil {
			got = e.Code
			if got != c.code {
				t.Errorf("%s: code %d, want %d", c.body, got, c.code)
			}
		} else if c.code != 0 {
			t.Errorf("%s: no error, want %d", c.body, c.code)
		}
	}
}

// TestMalformedMetaTraceContextIsIgnored: a traceparent in _meta that is
// not a string is no trace context, and no refusal.
func TestMalformedMetaTraceContextIsIgnored(t *testing.T) {
	msg, ref := parseMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":7,"tracestate":"a=b"}}}`))
	if ref != nil || msg.TraceParent != "" || msg.TraceState != "a=b" {
		t.Fatalf("parsed %+v refusal %+v", msg, ref)
	}
}
