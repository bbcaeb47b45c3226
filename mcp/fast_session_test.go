package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openRawSession initializes a session of revision on srv with raw
// requests, as a client does, and returns its id.
func openRawSession(t *testing.T, srv *httptest.Server, revision string) string {
	t.Helper()
	auth := map[string]string{"Authorization": "Bearer agent:coder"}
	resp, body := post(t, srv, "POST", auth, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+revision+
		`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	auth["Mcp-Session-Id"], auth["Mcp-Protocol-Version"] = id, revision
	if resp, body := post(t, srv, "POST", auth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return id
}

func sessionCallBody(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"` + args + `}}`
}

// TestSessionFastPathSaysWhatTheSDKSays is the session fast path's guard,
// as TestFastPathSaysWhatTheSDKSays is the stateless one's: each request is
// sent on a session of a handler with the fast path and on one of a handler
// without, and the client must read the same status and JSON-RPC message,
// and the gate must have been asked the same. Requests the fast path does
// not take must come back exactly as before, from the SDK.
func TestSessionFastPathSaysWhatTheSDKSays(t *testing.T) {
	const revision = "2025-11-25"
	q := `,"arguments":{"question":"agent memory"}`
	cases := []struct {
		name string
		hdr  map[string]string
		body string
		fast bool
	}{
		{"success", nil, sessionCallBody(`"c1"`, "search", q), true},
		{"numeric id and Mcp-Name", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "search"}, sessionCallBody(`42`, "search", q), true},
		{"ask: citations as resource links", nil, sessionCallBody(`3`, "ask", q), true},
		{"html in answer", nil, sessionCallBody(`4`, "search", `,"arguments":{"question":"<a&b> \u00e9 \u2028"}`), true},
		{"forbidden_scope", nil, sessionCallBody(`5`, "search", `,"arguments":{"question":"q","scope":{"projects":["other"]}}`), true},
		{"hidden tool", nil, sessionCallBody(`6`, "create_improvement_task", `,"arguments":{"eventType":"x","question":"q"}`), true},
		{"arguments not an object", nil, sessionCallBody(`7`, "search", `,"arguments":[1]`), true},
		{"no arguments", nil, sessionCallBody(`8`, "search", ``), true},
		{"unknown tool", nil, sessionCallBody(`9`, "nope", q), false},
		{"progress token", nil, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ask","arguments":{"question":"q"},"_meta":{"progressToken":"p"}}}`, false},
		{"another revision in the header", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, sessionCallBody(`11`, "search", q), false},
		{"no revision header", map[string]string{"Mcp-Protocol-Version": ""}, sessionCallBody(`12`, "search", q), false},
		{"Accept without SSE", map[string]string{"Accept": "application/json"}, sessionCallBody(`13`, "search", q), false},
		{"fractional id", nil, sessionCallBody(`1.5`, "search", q), false},
		{"look-alike member", nil, strings.Replace(sessionCallBody(`14`, "search", q), `"arguments"`, `"Arguments"`, 1), false},
		{"tools/list", nil, `{"jsonrpc":"2.0","id":15,"method":"tools/list"}`, false},
	}
	fastGate, sdkGate := newFakeGate(), newFakeGate()
	_, fastSrv := server(t, fastGate, Config{})
	sdkH, sdkSrv := server(t, sdkGate, Config{})
	sdkH.noFast = true
	fastID, sdkID := openRawSession(t, fastSrv, revision), openRawSession(t, sdkSrv, revision)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := func(id string) map[string]string {
				h := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revision, "Mcp-Session-Id": id}
				for k, v := range c.hdr {
					h[k] = v
				}
				return h
			}
			fr, fb := post(t, fastSrv, "POST", hdr(fastID), c.body)
			sr, sb := post(t, sdkSrv, "POST", hdr(sdkID), c.body)
			if fr.StatusCode != sr.StatusCode {
				t.Fatalf("status %d (%s), SDK %d (%s)", fr.StatusCode, fb, sr.StatusCode, sb)
			}
			gotFast := fr.Header.Get("Content-Type") == "application/json" && sr.Header.Get("Content-Type") == "text/event-stream"
			if gotFast != c.fast {
				t.Fatalf("fast path took it: %v, want %v (%s / %s)", gotFast, c.fast, fr.Header.Get("Content-Type"), sr.Header.Get("Content-Type"))
			}
			if got, want := sseMessage(fb), sseMessage(sb); got != want {
				t.Errorf("fast path:\n%s\nSDK:\n%s", got, want)
			}
			if fastGate.calls.Load() != sdkGate.calls.Load() {
				t.Errorf("gate calls %d, SDK path %d", fastGate.calls.Load(), sdkGate.calls.Load())
			}
			if fastGate.calls.Load() > 0 {
				fm, sm := fastGate.lastMeta(), sdkGate.lastMeta()
				if fm.RequestID != sm.RequestID || fm.Revision != sm.Revision || fm.SessionID != fastID || sm.SessionID != sdkID {
					t.Errorf("call meta %+v, SDK %+v", fm, sm)
				}
			}
		})
	}
}

// A session used only through the fast path is not idle: it outlives the
// idle timeout while calls keep coming, and is closed once they stop.
func TestSessionFastPathKeepsTheSessionAlive(t *testing.T) {
	h, srv := server(t, newFakeGate(), Config{SessionIdleTimeout: 300 * time.Millisecond})
	id := openRawSession(t, srv, "2025-11-25")
	hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": id}
	for range 8 {
		resp, body := post(t, srv, "POST", hdr, sessionCallBody(`1`, "search", `,"arguments":{"question":"q"}`))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("call on a live session: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitFor(t, func() bool { return h.Sessions() == 0 })
	if resp, _ := post(t, srv, "POST", hdr, sessionCallBody(`2`, "search", `,"arguments":{"question":"q"}`)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("call on the idled-out session: %d", resp.StatusCode)
	}
}
