package integration

import (
	"fmt"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestTracingMCPSpansRecordTheirOutcome: through the OTLP receiver, each
// MCP request's server span says how its client was answered, as the
// OpenTelemetry MCP conventions ask. A successful tools/call has status
// unset and no error attributes; a tools/call the policy denies (the tool
// gate's forbidden_tool, the decision's forbidden_scope) or whose
// arguments are bad is an isError result: error.type tool_error, status
// Error with the result's text, the protocol code as wikigate.result; a
// tools/call of an unknown tool (-32602), an unknown method (-32601) and a
// call with a bad token (-32001, refused before the message is read) are
// JSON-RPC errors: rpc.response.status_code and error.type are the code,
// status Error with the error's message.
func TestTracingMCPSpansRecordTheirOutcome(t *testing.T) {
	rc := startOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.url)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	coder := "Bearer " + agentToken(t, "kunora-coding-agent")
	ops := "Bearer " + agentToken(t, "ops-readonly-agent")

	call := func(tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, tool, args, mcpStatelessMeta)
	}
	cases := []struct {
		name, auth, method, target, body string
		status                           int
		span                             string
		errType, rpcCode, result, says   string // "" rpcCode, errType: none
	}{
		{"a successful tools/call", coder, "tools/call", "search", call("search", `{"question":"agent memory"}`), 200,
			"tools/call search", "", "", "ok", ""},
		{"a tool outside the grant", ops, "tools/call", "ask", call("ask", `{"question":"agent memory"}`), 200,
			"tools/call ask", "tool_error", "", "forbidden_tool", "forbidden_tool: "},
		{"a scope outside the grant", coder, "tools/call", "search", call("search", `{"question":"agent memory","scope":{"projects":["kunora-gateway"]}}`), 200,
			"tools/call search", "tool_error", "", "forbidden_scope", "forbidden_scope: "},
		{"bad arguments", coder, "tools/call", "search", call("search", `{"question":5}`), 200,
			"tools/call search", "tool_error", "", "invalid_request", "invalid_request: "},
		{"an unknown tool", coder, "tools/call", "nope", call("nope", `{}`), 400,
			"tools/call", "-32602", "-32602", "", "nope"},
		{"an unknown method", coder, "wiki/drop", "", `{"jsonrpc":"2.0","id":8,"method":"wiki/drop","params":{` + mcpStatelessMeta + `}}`, 404,
			"wiki/drop", "-32601", "-32601", "", "wiki/drop"},
		{"a bad token", "Bearer not-a-token", "tools/call", "search", call("search", `{"question":"agent memory"}`), 401,
			"tools/call search", "-32001", "-32001", "", ""},
	}
	for i, c := range cases {
		trace := fmt.Sprintf("%032x", 0xa000+i)
		hdr := map[string]string{"Authorization": c.auth, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": c.method,
			"Traceparent": "00-" + trace + "-00f067aa0ba902b7-01"}
		if c.target != "" {
			hdr["Mcp-Name"] = c.target
		}
		r := g.mcpPost(hdr, c.body)
		if r.Status != c.status {
			t.Errorf("%s: answered %d %s, want %d", c.name, r.Status, r.Body, c.status)
			continue
		}
		s := spanNamed(rc.waitSpans(t, trace, c.span), c.span)
		wantStatus := tracepb.Status_STATUS_CODE_ERROR
		if c.errType == "" {
			wantStatus = tracepb.Status_STATUS_CODE_UNSET
		}
		if s.Status.GetCode() != wantStatus || !strings.Contains(s.Status.GetMessage(), c.says) || (c.errType == "") != (s.Status.GetMessage() == "") {
			t.Errorf("%s: span status %v %q, want %v saying %q", c.name, s.Status.GetCode(), s.Status.GetMessage(), wantStatus, c.says)
		}
		for key, want := range map[string]string{"error.type": c.errType, "rpc.response.status_code": c.rpcCode, "wikigate.result": c.result} {
			got := spanAttr(s, key)
			if got.GetStringValue() != want || (want == "") != (got == nil) {
				t.Errorf("%s: span %s = %v, want %q", c.name, key, got, want)
			}
		}
		if spanAttr(s, "mcp.method.name").GetStringValue() != c.method || spanAttr(s, "mcp.protocol.version").GetStringValue() != "2026-07-28" {
			t.Errorf("%s: span attributes %v", c.name, s.Attributes)
		}
	}
}
