package gateway

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/telemetry"
)

// traceCall starts a call's server span (docs/operators.md, Tracing): its parent is
// the caller's traceparent, or Caddy's own span; the audit record carries
// its trace id. Off, r comes back as it was and the span is zero.
func (g *Gateway) traceCall(r *http.Request, rec *audit.Record, rt route) (*http.Request, telemetry.Span) {
	if !g.deps.Tracer.Active(r.Context()) {
		return r, telemetry.Span{}
	}
	ctx, span := g.deps.Tracer.StartServer(r.Context(), r.Header, r.Method+" "+rt.endpoint, telemetry.HTTPServerAttrs(r, rt.endpoint)...)
	if !span.Recording() {
		return r, span
	}
	span.Set(telemetry.AttrRequestID.String(rec.RequestID))
	if rt.endpoint == streamResumePattern {
		span.Set(telemetry.AttrLastEventID.String(r.Header.Get("Last-Event-ID")))
	}
	rec.TraceID = span.TraceID()
	return r.WithContext(ctx), span
}

// finishTraced writes the audit record under its own span, then ends the
// call's span with the record's status and result.
func (g *Gateway) finishTraced(ctx context.Context, span telemetry.Span, rec *audit.Record) {
	_, as := telemetry.Stage(ctx, telemetry.StageAudit)
	g.finish(ctx, rec)
	as.End()
	telemetry.EndCallAs(span, rec.CallerType, rec.Credential, rec.Status, rec.Result)
}

// tracedAnswers is the RAGFlow client seen through spans: a retrieval
// span ("retrieval ragflow") and a model call span following the GenAI
// conventions ("chat ragflow-default") around each call, so the backend
// HTTP span and the traceparent RAGFlow receives sit under them. The gate
// wraps its client only when tracing is on.
type tracedAnswers struct{ Answerer }

func (t tracedAnswers) Retrieve(ctx context.Context, p ragflow.RetrieveParams) (*ragflow.Retrieval, error) {
	ctx, span := telemetry.StartRetrieval(ctx, p.DatasetIDs, p.PageSize)
	r, err := t.Answerer.Retrieve(ctx, p)
	span.Fail(err, "ragflow_unavailable")
	if err == nil {
		span.Set(attribute.Int("wikigate.chunks.retrieved", len(r.Chunks)))
	}
	span.End()
	return r, err
}

func (t tracedAnswers) Complete(ctx context.Context, msgs []ragflow.Message, stream bool) (*ragflow.Completion, error) {
	return t.CompleteFunc(ctx, msgs, stream, nil)
}

// CompleteFunc keeps the wrapped client's streaming (textStreamer) when
// it has it; otherwise it is Complete, as generate would have called.
func (t tracedAnswers) CompleteFunc(ctx context.Context, msgs []ragflow.Message, stream bool, onText func(string)) (*ragflow.Completion, error) {
	ctx, span := telemetry.StartGeneration(ctx, len(msgs))
	var comp *ragflow.Completion
	var err error
	if ts, ok := t.Answerer.(textStreamer); ok && onText != nil {
		comp, err = ts.CompleteFunc(ctx, msgs, stream, onText)
	} else {
		comp, err = t.Answerer.Complete(ctx, msgs, stream)
	}
	telemetry.EndGeneration(span, completionUsage(comp, err), err)
	return comp, err
}

// completionUsage is what the span reports of a completion: its tokens
// (RAGFlow's count, or the gate's estimate, marked so) and the finish
// reason stop, which RAGFlow gives every answer it finishes.
func completionUsage(comp *ragflow.Completion, err error) telemetry.Usage {
	if err != nil || comp == nil {
		return telemetry.Usage{}
	}
	return telemetry.Usage{InputTokens: comp.Usage.InputTokens, OutputTokens: comp.Usage.OutputTokens,
		Estimated: comp.Usage.Estimated, FinishReasons: stopReason}
}

var stopReason = []string{"stop"}

// endDecision ends a tool gate or decide span with the decision the
// record holds; none there is the tool gate's allow, which records
// nothing, by the revision serving now.
func (g *Gateway) endDecision(span telemetry.Span, rec *audit.Record) {
	if !span.Recording() {
		return
	}
	if d := rec.Decision; d != nil {
		telemetry.EndDecision(span, d.Allow, d.Code, d.Revision)
		return
	}
	telemetry.EndDecision(span, true, "", g.deps.Policy.Revision())
}

// traceCall gives an MCP tools/call its span: the server span the MCP
// front started for the request that carried it (TraceMessage), which the
// call's stages and end write on and the front ends with the answer its
// client read. Without one (a call that did not come through the front)
// it starts the call's own span, following the MCP conventions
// ("tools/call ask": method, tool, session, JSON-RPC id), under the trace
// context of the request's params._meta, else that of the HTTP request
// that carried it (telemetry.StartMessage says why in that order).
func (m *MCPGate) traceCall(ctx context.Context, tool string, meta mcp.CallMeta, rec *audit.Record) (context.Context, telemetry.Span) {
	var h http.Header
	if meta.HTTP != nil {
		if recording, ok := meta.HTTP.Context().Value(mcpRequestSpan{}).(bool); ok {
			if !recording { // the sampler dropped the request
				return ctx, telemetry.Span{}
			}
			ctx, span := telemetry.InMCPRequest(ctx, meta.HTTP.Context())
			span.Set(telemetry.AttrRequestID.String(rec.RequestID))
			rec.TraceID = span.TraceID()
			return ctx, span
		}
		h = meta.HTTP.Header
		if m.g.deps.Tracer.Active(meta.HTTP.Context()) {
			ctx = telemetry.UnderRequest(ctx, meta.HTTP.Context())
		}
	}
	if !m.g.deps.Tracer.Active(ctx) {
		return ctx, telemetry.Span{}
	}
	name, attrs := telemetry.MCPToolCall(tool, meta.SessionID, rec.JSONRPCID)
	var mc telemetry.MessageContext
	mc.TraceParent, mc.TraceState = mcp.MessageTraceContext(meta.HTTP)
	ctx, span := m.g.deps.Tracer.StartMessage(ctx, h, mc, name, attrs...)
	if span.Recording() {
		span.Set(telemetry.AttrRequestID.String(rec.RequestID))
		rec.TraceID = span.TraceID()
	}
	return ctx, span
}

// mcpRequestSpan marks the context of an MCP request the front traced
// (TraceMessage): true when its span records, false when the sampler
// dropped it (the request's calls then make no span either).
type mcpRequestSpan struct{}

// TraceMessage starts the server span of an MCP request (mcp's
// MessageTracer), named and attributed as the MCP conventions ask, under
// the trace context of the message's _meta or of its HTTP request. A
// request refused before its message was read and naming no method is
// named by its HTTP method and the endpoint ("POST /mcp"). The returned
// end, nil when the request is not traced, ends it with the session the
// request opened or ran in and with how its client was answered: a
// JSON-RPC error, or a tools/call's isError result, marks it failed
// (telemetry.EndMCP).
func (m *MCPGate) TraceMessage(r *http.Request, msg mcp.TracedMessage) (*http.Request, func(mcp.MessageEnd)) {
	if !m.g.deps.Tracer.Active(r.Context()) {
		return r, nil
	}
	name, attrs := telemetry.MCPRequest(msg.Method, msg.Target, msg.SessionID, msg.RequestID, msg.Revision)
	if name == "" {
		name = r.Method + " " + m.cfg.Path
	}
	mc := telemetry.MessageContext{TraceParent: msg.TraceParent, TraceState: msg.TraceState}
	ctx, span := m.g.deps.Tracer.StartMessage(r.Context(), r.Header, mc, name, attrs...)
	if !span.Recording() {
		return r.WithContext(context.WithValue(r.Context(), mcpRequestSpan{}, false)), nil
	}
	return r.WithContext(context.WithValue(ctx, mcpRequestSpan{}, true)), func(end mcp.MessageEnd) {
		if msg.SessionID == "" && end.SessionID != "" { // initialize opened it
			span.Set(telemetry.MCPSessionID.String(end.SessionID))
		}
		telemetry.EndMCP(span, telemetry.MCPOutcome{RPCCode: end.RPCCode, ToolError: end.ToolError, Message: end.Message})
	}
}
