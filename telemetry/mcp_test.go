package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TestEndMCPRecordsTheAnswer: an MCP request's span ends as the MCP
// conventions ask. A JSON-RPC error response sets rpc.response.status_code
// and error.type to its code and the status to Error with its message; a
// tools/call result with isError sets error.type tool_error and the status
// to Error with the result's text; a success sets neither and leaves the
// status unset.
func TestEndMCPRecordsTheAnswer(t *testing.T) {
	p, exp := recorder(t, false)
	cases := []struct {
		name     string
		out      MCPOutcome
		status   codes.Code
		errType  string
		rpcCode  string
		describe string
	}{
		{"tools/call search", MCPOutcome{}, codes.Unset, "", "", ""},
		{"tools/call ask", MCPOutcome{ToolError: true, Message: "policy_denied: not in your grant"}, codes.Error, "tool_error", "", "policy_denied: not in your grant"},
		{"wiki/drop", MCPOutcome{RPCCode: -32601, Message: `"wiki/drop" unsupported`}, codes.Error, "-32601", "-32601", `"wiki/drop" unsupported`},
		{"tools/call", MCPOutcome{RPCCode: -32602, Message: `unknown tool "nope"`}, codes.Error, "-32602", "-32602", `unknown tool "nope"`},
	}
	for _, c := range cases {
		_, s := p.StartMessage(context.Background(), nil, MessageContext{}, c.name)
		EndMCP(s, c.out)
	}
	spans := flushed(t, p, exp)
	if len(spans) != len(cases) {
		t.Fatalf("%d spans, want %d", len(spans), len(cases))
	}
	for i, c := range cases {
		s := spans[i]
		if s.Status.Code != c.status || s.Status.Description != c.describe {
			t.Errorf("%s: status %v %q, want %v %q", c.name, s.Status.Code, s.Status.Description, c.status, c.describe)
		}
		if got := attr(s.Attributes, "error.type"); got.AsString() != c.errType || (c.errType == "") != (got.Type() == attribute.EMPTY) {
			t.Errorf("%s: error.type %v, want %q", c.name, got.String(), c.errType)
		}
		if got := attr(s.Attributes, "rpc.response.status_code"); got.AsString() != c.rpcCode || (c.rpcCode == "") != (got.Type() == attribute.EMPTY) {
			t.Errorf("%s: rpc.response.status_code %v, want %q", c.name, got.String(), c.rpcCode)
		}
	}
}

// TestAToolCallWritesOnItsMCPRequestsSpan: a tools/call's pipeline sees
// the MCP request's span (InMCPRequest): its stages and its end
// (EndCallAs) write on it without ending it, even a 5xx, whose failure is
// the MCP outcome's (tool_error) rather than the HTTP one's; the front
// ends it.
func TestAToolCallWritesOnItsMCPRequestsSpan(t *testing.T) {
	p, exp := recorder(t, false)
	name, attrs := MCPRequest(MethodToolsCall, "ask", "s-1", "4", "2025-11-25")
	reqCtx, req := p.StartMessage(context.Background(), nil, MessageContext{}, name, attrs...)

	ctx, call := InMCPRequest(context.Background(), reqCtx)
	_, gate := Stage(ctx, StageToolGate)
	EndDecision(gate, true, "", "rev-1")
	_, child := Start(ctx, "retrieval ragflow", trace.SpanKindClient)
	child.End()
	EndCallAs(call, "agent", "jwt", 503, "ragflow_unavailable")
	if got := flushed(t, p, exp); len(got) != 1 || got[0].Name != "retrieval ragflow" {
		t.Fatalf("before the front ends it: spans %v, want the retrieval only", names(got))
	}
	EndMCP(req, MCPOutcome{ToolError: true, Message: "ragflow_unavailable: the answer service is unavailable"})

	spans := flushed(t, p, exp)
	if len(spans) != 2 {
		t.Fatalf("spans %v, want the retrieval and the request", names(spans))
	}
	s := spans[1]
	if s.Name != "tools/call ask" || spans[0].Parent.SpanID() != s.SpanContext.SpanID() {
		t.Errorf("request span %q; the retrieval's parent %v, want it", s.Name, spans[0].Parent.SpanID())
	}
	for k, v := range map[string]string{"gen_ai.tool.name": "ask", "mcp.protocol.version": "2025-11-25", "wikigate.result": "ragflow_unavailable",
		"wikigate.caller.type": "agent", "error.type": "tool_error", "wikigate.policy.revision": "rev-1"} {
		if got := attr(s.Attributes, k).AsString(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if s.Status.Code != codes.Error || attr(s.Attributes, "http.response.status_code").AsInt64() != 503 {
		t.Errorf("status %v, http.response.status_code %v", s.Status, attr(s.Attributes, "http.response.status_code").String())
	}
}

// TestMCPRequestWithoutAMethod: a request refused before its message was
// read, naming no method, has no mcp.method.name and no name of its own;
// a tools/call of a known tool is named and attributed as MCPToolCall.
func TestMCPRequestWithoutAMethod(t *testing.T) {
	name, attrs := MCPRequest("", "", "", "", "2025-11-25")
	if name != "" || attr(attrs, "mcp.method.name").Type() != attribute.EMPTY || attr(attrs, "mcp.protocol.version").AsString() != "2025-11-25" {
		t.Errorf("name %q attributes %v", name, attrs)
	}
	name, attrs = MCPRequest(MethodToolsCall, "search", "", "9", "2026-07-28")
	if name != "tools/call search" || attr(attrs, "gen_ai.operation.name").AsString() != "execute_tool" || attr(attrs, "jsonrpc.request.id").AsString() != "9" {
		t.Errorf("name %q attributes %v", name, attrs)
	}
	if name, _ := MCPRequest(MethodToolsCall, "", "", "9", ""); name != "tools/call" {
		t.Errorf("a tools/call naming no known tool: %q", name)
	}
}
