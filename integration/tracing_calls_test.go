package integration

import (
	"encoding/hex"
	"net/http"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestTracingCoversHistoryResumeFeedbackAndMCP: with tracing on, a session
// read back, a stream resume, a person's feedback, an MCP initialize and
// tools/list are each one server span under the caller's traceparent, with
// the call's result and the audit record's trace id; a tools/call whose
// params._meta holds a traceparent joins that trace rather than the HTTP
// header's, and links to the header's.
func TestTracingCoversHistoryResumeFeedbackAndMCP(t *testing.T) {
	rc := startOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.url)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	owner := bearer(agentToken(t, "kunora-coding-agent"))
	traced := func(h map[string]string, trace string) map[string]string {
		out := map[string]string{"Traceparent": "00-" + trace + "-00f067aa0ba902b7-01"}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	callSpan := func(trace, name string) *tracepb.Span {
		t.Helper()
		s := spanNamed(rc.waitSpans(t, trace, name), name)
		if hex.EncodeToString(s.ParentSpanId) != "00f067aa0ba902b7" || s.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("%s: parent %x kind %v, want the caller's span, server", name, s.ParentSpanId, s.Kind)
		}
		return s
	}

	created, _ := historySession(t, g, owner)
	const historyTrace = "11111111111111111111111111111111"
	r := g.getSession(created["sessionId"].(string), traced(withSession(owner, created["sessionToken"].(string)), historyTrace))
	if r.Status != 200 {
		t.Fatalf("history: %d %s", r.Status, r.Body)
	}
	s := callSpan(historyTrace, "GET /answer/sessions/{sessionId}")
	if spanAttr(s, "http.response.status_code").GetIntValue() != 200 || spanAttr(s, "wikigate.caller.type").GetStringValue() != "agent" {
		t.Errorf("history span: %v", s.Attributes)
	}
	if !spanAttr(s, "wikigate.tool_gate.allow").GetBoolValue() || spanAttr(s, "wikigate.policy.revision").GetStringValue() == "" {
		t.Errorf("history span lacks the tool gate's answer and revision: %v", s.Attributes)
	}

	const resumeTrace = "22222222222222222222222222222222"
	resp := g.resumeStream(t.Context(), "/answer/streams/no-such-stream", traced(owner, resumeTrace), "4")
	resp.Body.Close()
	s = callSpan(resumeTrace, "GET /answer/streams/{streamId}")
	if spanAttr(s, "wikigate.stream.last_event_id").GetStringValue() != "4" || spanAttr(s, "http.response.status_code").GetIntValue() != int64(resp.StatusCode) {
		t.Errorf("resume span (answered %d): %v", resp.StatusCode, s.Attributes)
	}

	const feedbackTrace = "33333333333333333333333333333333"
	r = g.post("/answer/feedback", traced(nil, feedbackTrace), `{"eventType":"qa_no_answer","question":"`+noAnswerQuestion+`","comment":"traced","idempotencyKey":"trace-1"}`)
	if r.Status != 200 {
		t.Fatalf("feedback: %d %s", r.Status, r.Body)
	}
	s = callSpan(feedbackTrace, "POST /answer/feedback")
	if spanAttr(s, "wikigate.caller.type").GetStringValue() == "" || spanAttr(s, "http.response.status_code").GetIntValue() != 200 {
		t.Errorf("feedback span: %v", s.Attributes)
	}

	const initTrace, listTrace = "44444444444444444444444444444444", "55555555555555555555555555555555"
	ir := g.mcpPost(traced(owner, initTrace), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"integration","version":"1"}}}`)
	session := ir.Header.Get("Mcp-Session-Id")
	if ir.Status != 200 || session == "" {
		t.Fatalf("initialize: %d %s", ir.Status, ir.Body)
	}
	s = callSpan(initTrace, "initialize")
	if spanAttr(s, "mcp.method.name").GetStringValue() != "initialize" || spanAttr(s, "mcp.session.id").GetStringValue() != session || spanAttr(s, "jsonrpc.request.id").GetStringValue() != "1" {
		t.Errorf("initialize span: %v", s.Attributes)
	}
	if r := g.mcpPost(mcpOn(owner, session), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.Status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.Status, r.Body)
	}
	// tools/list with its trace context in _meta only
	lr := g.mcpPost(mcpOn(owner, session), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"traceparent":"00-`+listTrace+`-00f067aa0ba902b7-01"}}}`)
	if lr.Status != 200 {
		t.Fatalf("tools/list: %d %s", lr.Status, lr.Body)
	}
	s = callSpan(listTrace, "tools/list")
	if spanAttr(s, "mcp.session.id").GetStringValue() != session || spanAttr(s, "mcp.protocol.version").GetStringValue() != "2025-11-25" {
		t.Errorf("tools/list span: %v", s.Attributes)
	}

	const metaTrace, headerTrace = "66666666666666666666666666666666", "77777777777777777777777777777777"
	cr := g.mcpPost(traced(mcpOn(owner, session), headerTrace), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},`+
		`"_meta":{"traceparent":"00-`+metaTrace+`-00f067aa0ba902b7-01"}}}`)
	if cr.Status != 200 {
		t.Fatalf("tools/call: %d %s", cr.Status, cr.Body)
	}
	s = callSpan(metaTrace, "tools/call search")
	if len(s.Links) != 1 || hex.EncodeToString(s.Links[0].TraceId) != headerTrace {
		t.Errorf("tools/call span links %v, want one to the HTTP traceparent's trace %s", s.Links, headerTrace)
	}
}
