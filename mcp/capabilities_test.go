package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// Every method the server answers belongs to a capability it declares,
// and the methods of capabilities it does not declare are -32601 Method
// not found (HTTP 404 on 2026-07-28). The gate answered prompts/list
// without declaring prompts, which the conformance suite's server-stateless
// scenario refuses; it now declares prompts (an empty list), and logging
// on the session revisions (2026-07-28 removed logging/setLevel).
func TestAnsweredMethodsAreDeclared(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	auth := map[string]string{"Authorization": "Bearer agent:coder"}
	resp, body := post(t, srv, "POST", auth, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sessionCaps := capabilitiesOf(t, sseMessage(body))
	session := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	if r, b := post(t, srv, "POST", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.StatusCode, b)
	}
	stateless := func(method string) map[string]string {
		return map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless, "Mcp-Method": method}
	}
	_, body = post(t, srv, "POST", stateless("server/discover"), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+metaTriple+`}}`)
	statelessCaps := capabilitiesOf(t, sseMessage(body))

	methods := []struct{ method, params, capability string }{
		{"prompts/list", `{}`, "prompts"},
		{"logging/setLevel", `{"level":"info"}`, "logging"},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`, "completions"},
		{"resources/subscribe", `{"uri":"wiki://main/x.md"}`, "resources.subscribe"},
	}
	for _, m := range methods {
		_, body := post(t, srv, "POST", session, `{"jsonrpc":"2.0","id":7,"method":"`+m.method+`","params":`+m.params+`}`)
		checkDeclared(t, "session", m.method, sseMessage(body), sessionCaps[m.capability], http.StatusOK, http.StatusOK)
		resp, body := post(t, srv, "POST", stateless(m.method), `{"jsonrpc":"2.0","id":8,"method":"`+m.method+`","params":`+withMeta(m.params)+`}`)
		checkDeclared(t, "stateless", m.method, sseMessage(body), statelessCaps[m.capability], resp.StatusCode, http.StatusNotFound)
	}
	if !sessionCaps["prompts"] || !statelessCaps["prompts"] || !sessionCaps["logging"] || statelessCaps["logging"] {
		t.Errorf("declared: session %v, stateless %v; want prompts on both, logging on sessions only", sessionCaps, statelessCaps)
	}
}

// checkDeclared: a method is answered if and only if its capability is
// declared; otherwise it is -32601 with the HTTP status the revision wants.
func checkDeclared(t *testing.T, where, method, msg string, declared bool, status, refusedStatus int) {
	t.Helper()
	answered := strings.Contains(msg, `"result"`)
	code, _, _ := rpcErr(t, msg)
	switch {
	case declared && !answered:
		t.Errorf("%s %s: declared but not answered: %s", where, method, msg)
	case !declared && answered:
		t.Errorf("%s %s: answered without its capability declared: %s", where, method, msg)
	case !declared && (code != -32601 || status != refusedStatus):
		t.Errorf("%s %s: %d code %d, want %d and -32601", where, method, status, code, refusedStatus)
	}
}

// capabilitiesOf reads the capabilities of an initialize or discover
// result as a set: "prompts", "logging", "resources.subscribe"...
func capabilitiesOf(t *testing.T, msg string) map[string]bool {
	t.Helper()
	var r struct {
		Result struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(msg), &r); err != nil || r.Result.Capabilities == nil {
		t.Fatalf("no capabilities in %s", msg)
	}
	out := map[string]bool{}
	for k, v := range r.Result.Capabilities {
		out[k] = true
		var sub map[string]any
		_ = json.Unmarshal(v, &sub)
		for s, on := range sub {
			if on == true {
				out[k+"."+s] = true
			}
		}
	}
	return out
}

// withMeta adds the stateless _meta triple to a params object.
func withMeta(params string) string {
	if params == "{}" {
		return "{" + metaTriple + "}"
	}
	return params[:len(params)-1] + "," + metaTriple + "}"
}

// errorLog counts the records a logger gets at error level.
type errorLog struct{ n *atomic.Int64 }

func (errorLog) Enabled(context.Context, slog.Level) bool { return true }
func (e errorLog) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		e.n.Add(1)
	}
	return nil
}
func (e errorLog) WithAttrs([]slog.Attr) slog.Handler { return e }
func (e errorLog) WithGroup(string) slog.Handler      { return e }

// Methods the stateless revision removed are 404 with -32601, and a
// client sending them cannot make the gate log at error level (the SDK
// logged each with a stack trace).
func TestRemovedMethodsAreNotLoggedAsErrors(t *testing.T) {
	var errs atomic.Int64
	h, err := New(Config{Enabled: true}, newFakeGate(), slog.New(errorLog{&errs}))
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	for i, m := range []struct{ method, params string }{
		{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`},
		{"ping", `{}`},
		{"logging/setLevel", `{"level":"info"}`},
		{"resources/subscribe", `{"uri":"wiki://main/x.md"}`},
	} {
		hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless, "Mcp-Method": m.method}
		resp, body := post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"`+m.method+`","params":`+withMeta(m.params)+`}`)
		if code, _, _ := rpcErr(t, sseMessage(body)); resp.StatusCode != http.StatusNotFound || code != -32601 || !strings.Contains(body, `"id":`+strconv.Itoa(i+1)+`,`) {
			t.Errorf("%s: %d %s, want 404 and -32601 with the id", m.method, resp.StatusCode, body)
		}
	}
	hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless, "Mcp-Method": "notifications/initialized"}
	if resp, body := post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{`+metaTriple+`}}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("notifications/initialized: %d %s", resp.StatusCode, body)
	}
	if n := errs.Load(); n != 0 {
		t.Errorf("%d records logged at error level", n)
	}
}
