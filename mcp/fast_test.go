package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
)

const metaTriple = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// fastCase is one raw stateless request; fast says whether the fast path
// should answer it (application/json) rather than leave it to the SDK.
type fastCase struct {
	name string
	hdr  map[string]string
	body string
	fast bool
}

func callBody(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"` + args + `,` + metaTriple + `}}`
}

func fastCases() []fastCase {
	call := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "search"}
	list := map[string]string{"Mcp-Method": "tools/list"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	q := `,"arguments":{"question":"agent memory"}`
	return []fastCase{
		{"success", call, callBody(`"c1"`, "search", q), true},
		{"numeric id", call, callBody(`42`, "search", q), true},
		{"ask: citations as resource links", with(call, "Mcp-Name", "ask"), callBody(`30`, "ask", q), true},
		{"get_context", with(call, "Mcp-Name", "get_context"), callBody(`31`, "get_context", q), true},
		{"create_feedback (a stored receipt)", with(call, "Mcp-Name", "create_feedback"),
			callBody(`32`, "create_feedback", `,"arguments":{"eventType":"qa_no_answer","question":"q"}`), true},
		{"html in answer", call, callBody(`7`, "search", `,"arguments":{"question":"<a&b> \u00e9 \u2028"}`), true},
		{"forbidden_scope", call, callBody(`2`, "search", `,"arguments":{"question":"q","scope":{"projects":["other"]}}`), true},
		{"hidden tool", with(call, "Mcp-Name", "create_improvement_task", "Authorization", "Bearer agent:ops"),
			callBody(`3`, "create_improvement_task", `,"arguments":{"eventType":"x","question":"q"}`), true},
		{"bad params (arguments not an object)", call, callBody(`4`, "search", `,"arguments":[1]`), true},
		{"no arguments", call, callBody(`5`, "search", ``), true},
		{"null arguments", call, callBody(`6`, "search", `,"arguments":null`), true},
		{"unknown tool", with(call, "Mcp-Name", "nope"), callBody(`8`, "nope", q), false},
		{"mismatched Mcp-Name", with(call, "Mcp-Name", "ask"), callBody(`9`, "search", q), false},
		{"missing Mcp-Name", with(call, "Mcp-Name", ""), callBody(`10`, "search", q), false},
		{"missing Mcp-Method", with(call, "Mcp-Method", ""), callBody(`11`, "search", q), false},
		{"progress token", with(call, "Mcp-Name", "ask"), `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"ask","arguments":{"question":"q"},` +
			`"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, false},
		{"no clientCapabilities", call, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, false},
		{"_meta revision differs from header", call, strings.Replace(callBody(`14`, "search", q), `"2026-07-28"`, `"2026-07-29"`, 1), false},
		{"no _meta revision", call, `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`, false},
		{"Accept without SSE", with(call, "Accept", "application/json"), callBody(`16`, "search", q), false},
		{"clientInfo with icons", call, strings.Replace(callBody(`17`, "search", q), `"version":"1"`, `"version":"1","icons":[]`, 1), false},
		{"fractional id", call, callBody(`1.0`, "search", q), false},
		{"escaped id", call, callBody(`"\u00e9"`, "search", q), false},
		{"look-alike member", call, strings.Replace(callBody(`18`, "search", q), `"arguments"`, `"Arguments"`, 1), false},
		{"duplicate member in arguments", call, callBody(`23`, "search", `,"arguments":{"question":"a","question":"b"}`), false},
		{"invalid UTF-8", call, callBody(`24`, "search", ",\"arguments\":{\"question\":\"\xff\"}"), false},
		{"roots capability", call, strings.Replace(callBody(`19`, "search", q), `Capabilities":{}`, `Capabilities":{"roots":{"listChanged":true}}`, 1), true},
		{"list", list, `{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{` + metaTriple + `}}`, true},
		{"list as ops", with(list, "Authorization", "Bearer agent:ops"), `{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{` + metaTriple + `}}`, true},
		{"list with cursor", list, `{"jsonrpc":"2.0","id":21,"method":"tools/list","params":{"cursor":"x",` + metaTriple + `}}`, false},
		{"list without params", list, `{"jsonrpc":"2.0","id":22,"method":"tools/list"}`, false},
	}
}

// TestFastPathSaysWhatTheSDKSays is the guard of the fast path: every
// request of the table is sent to a handler with the fast path and to one
// without, and the client must read the same JSON-RPC message (byte for
// byte), the same status, and the gate must have been asked the same.
// Requests the fast path does not take must come back exactly as before.
func TestFastPathSaysWhatTheSDKSays(t *testing.T) {
	fastGate, sdkGate := newFakeGate(), newFakeGate()
	_, fastSrv := server(t, fastGate, Config{})
	sdkH, sdkSrv := server(t, sdkGate, Config{})
	sdkH.noFast = true
	for _, c := range fastCases() {
		t.Run(c.name, func(t *testing.T) {
			hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2026-07-28"}
			for k, v := range c.hdr {
				hdr[k] = v
			}
			fr, fb := post(t, fastSrv, "POST", hdr, c.body)
			sr, sb := post(t, sdkSrv, "POST", hdr, c.body)
			if fr.StatusCode != sr.StatusCode {
				t.Fatalf("status %d, SDK %d (%s)", fr.StatusCode, sr.StatusCode, sb)
			}
			gotFast := fr.Header.Get("Content-Type") == "application/json" && sr.Header.Get("Content-Type") == "text/event-stream"
			if gotFast != c.fast {
				t.Fatalf("fast path took it: %v, want %v (%s / %s)", gotFast, c.fast, fr.Header.Get("Content-Type"), sr.Header.Get("Content-Type"))
			}
			if got, want := sseMessage(fb), sseMessage(sb); got != want {
				t.Errorf("fast path:\n%s\nSDK:\n%s", got, want)
			}
			if fastGate.calls.Load() != sdkGate.calls.Load() || fastGate.toolCalls.Load() != sdkGate.toolCalls.Load() {
				t.Errorf("gate asked differently: calls %d/%d, lists %d/%d",
					fastGate.calls.Load(), sdkGate.calls.Load(), fastGate.toolCalls.Load(), sdkGate.toolCalls.Load())
			}
			if fastGate.calls.Load() > 0 {
				fm, sm := fastGate.lastMeta(), sdkGate.lastMeta()
				if fm.RequestID != sm.RequestID || fm.Revision != sm.Revision || fm.SessionID != sm.SessionID {
					t.Errorf("call meta %+v, SDK %+v", fm, sm)
				}
			}
		})
	}
}

// sseMessage is the body without its SSE framing: the data of each event
// (a JSON body is returned as it is).
func sseMessage(body string) string {
	if !strings.HasPrefix(body, "event:") && !strings.HasPrefix(body, "data:") {
		return body
	}
	var data []string
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" { // the priming event's data is empty
			data = append(data, d)
		}
	}
	return strings.Join(data, "\n")
}

// The fast path never has Mcp-Param-* headers to check: none of the six
// tools declares an x-mcp-header parameter. A tool that does must go
// through the SDK (or the fast path must learn to check them).
func TestNoParamHeaders(t *testing.T) {
	for _, d := range toolDefs {
		if strings.Contains(string(d.input), "x-mcp-header") {
			t.Errorf("%s declares x-mcp-header parameters", d.name)
		}
	}
}

// The SDK's own client reads fast-path answers (application/json) as it
// reads the SDK's SSE ones: the list, a result and an isError result.
func TestFastPathSDKClient(t *testing.T) {
	h, err := New(Config{Enabled: true}, newFakeGate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	answered := map[string]string{} // Mcp-Method → Content-Type of the answer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		mu.Lock()
		answered[r.Header.Get("Mcp-Method")] = w.Header().Get("Content-Type")
		mu.Unlock()
	}))
	t.Cleanup(func() { h.Close(); srv.Close() })
	cs := connect(t, srv, "agent:ops", "", nil)
	if names := toolNames(t, cs); len(names) != 2 {
		t.Errorf("tools %v", names)
	}
	out, err := cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "search", Arguments: map[string]any{"question": "q"}})
	if err != nil || out.IsError || out.StructuredContent == nil || len(out.Content) != 1 {
		t.Fatalf("search: %v %+v", err, out)
	}
	out, err = cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "q"}})
	if err != nil || !out.IsError || !strings.Contains(out.Content[0].(*mcpsdk.TextContent).Text, "forbidden_tool") {
		t.Fatalf("hidden ask: %v %+v", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if answered["tools/list"] != "application/json" || answered["tools/call"] != "application/json" {
		t.Errorf("the SDK client's requests did not take the fast path: %v", answered)
	}
}

// toolsDown is a gate whose policy cannot be asked.
type toolsDown struct{ *fakeGate }

func (toolsDown) Tools(context.Context, identity.Principal) (Grants, error) {
	return Grants{}, protocol.NewError(protocol.CodePolicyUnavailable, "policy unavailable")
}

// A policy failure during tools/list is the same JSON-RPC error on both
// paths (rpcError: internal, the protocol code in data).
func TestFastListErrorSaysWhatTheSDKSays(t *testing.T) {
	fastH, err := New(Config{Enabled: true}, toolsDown{newFakeGate()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sdkH, _ := New(Config{Enabled: true}, toolsDown{newFakeGate()}, nil)
	sdkH.noFast = true
	hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaTriple + `}}`
	fr, fb := post(t, startHandler(t, fastH), "POST", hdr, body)
	sr, sb := post(t, startHandler(t, sdkH), "POST", hdr, body)
	if fr.StatusCode != sr.StatusCode || sseMessage(fb) != sseMessage(sb) || fr.Header.Get("Content-Type") != "application/json" {
		t.Errorf("fast %d %s\nSDK %d %s", fr.StatusCode, fb, sr.StatusCode, sb)
	}
}

// TestFastDecodeReadsWhatParseMessageReads is why decodeOnce may skip
// parseMessage: every body a fast decoder (decodeFast, decodeSessionCall)
// accepts, parseMessage accepts
// too, and both read the same method, id, name and revision from it. The
// bodies are the fast-path table's and the front's refusals.
func TestFastDecodeReadsWhatParseMessageReads(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"1.0","id":1,"method":"tools/list","params":{` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaTriple + `},"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"NAME":"x",` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x",` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1,` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"uri":"wiki://main/x",` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{` + metaTriple + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"name":"x",` + metaTriple + `}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaTriple + `}}]`,
	}
	for _, c := range fastCases() {
		bodies = append(bodies, c.body)
	}
	q := `,"arguments":{"question":"q"}`
	bodies = append(bodies, sessionCallBody(`1`, "search", q), sessionCallBody(`"s"`, "ask", ``), sessionCallBody(`2`, "x", `,"arguments":null`),
		strings.Replace(sessionCallBody(`3`, "search", q), `"tools/call"`, `"tools/list"`, 1),
		strings.Replace(sessionCallBody(`4`, "search", q), `"name"`, `"uri"`, 1))
	accepted := 0
	for _, body := range bodies {
		req, ok := decodeFast([]byte(body))
		if !ok {
			req, ok = decodeSessionCall([]byte(body))
		}
		if !ok {
			continue
		}
		accepted++
		want, ref := parseMessage([]byte(body))
		if ref != nil {
			t.Errorf("fast decoder took what parseMessage refuses (%s): %s", ref.message, body)
			continue
		}
		got := req.message()
		if got.Method != want.Method || string(got.ID) != string(want.ID) || got.Name != want.Name || got.MetaVersion != want.MetaVersion {
			t.Errorf("fast read %q %s %q %q, parseMessage %q %s %q %q: %s", got.Method, got.ID, got.Name, got.MetaVersion,
				want.Method, want.ID, want.Name, want.MetaVersion, body)
		}
	}
	if accepted < 10 {
		t.Fatalf("only %d bodies took the fast decoder: the table no longer tests it", accepted)
	}
}
