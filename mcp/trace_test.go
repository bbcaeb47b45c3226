package mcp

import (
	"net/http"
	"sync"
	"testing"
)

// tracingGate is fakeGate that traces as the gateway does (MessageTracer),
// keeping what each traced request told it and the session it ended with.
type tracingGate struct {
	*fakeGate
	mu    sync.Mutex
	msgs  []TracedMessage
	ended []string
}

func (g *tracingGate) TraceMessage(r *http.Request, m TracedMessage) (*http.Request, func(string)) {
	g.mu.Lock()
	g.msgs = append(g.msgs, m)
	g.mu.Unlock()
	return r, func(session string) {
		g.mu.Lock()
		g.ended = append(g.ended, session)
		g.mu.Unlock()
	}
}

const metaTP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// TestRequestsOtherThanToolCallsAreTraced: initialize and tools/list each
// get a span from the gate (method, JSON-RPC id, session, the trace
// context of params._meta), initialize's ending with the session it
// opened; a notification gets none; a tools/call gets no front span (the
// gate's Call makes it) but its _meta trace context reaches the call on
// CallMeta.HTTP.
func TestRequestsOtherThanToolCallsAreTraced(t *testing.T) {
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
	if len(msgs) != 2 || len(ended) != 2 {
		t.Fatalf("traced %+v ended %v, want initialize and tools/list only", msgs, ended)
	}
	if m := msgs[0]; m.Method != "initialize" || m.RequestID != "1" || m.SessionID != "" || m.TraceParent != metaTP || m.TraceState != "v=1" || ended[0] != session {
		t.Errorf("initialize traced as %+v, ended with session %q (want %q)", m, ended[0], session)
	}
	if m := msgs[1]; m.Method != "tools/list" || m.RequestID != `"l2"` || m.SessionID != session || m.Revision != "2025-11-25" || m.TraceParent != "" {
		t.Errorf("tools/list traced as %+v", m)
	}
	if tp, _ := MessageTraceContext(g.lastMeta().HTTP); tp != metaTP {
		t.Errorf("the tools/call reached the gate with _meta traceparent %q, want %q", tp, metaTP)
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
