package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// MessageContext is the W3C trace context an MCP client sent inside one
// request, in params._meta under the keys traceparent and tracestate
// (MCP SEP-414; the OpenTelemetry MCP conventions, Context propagation).
// The zero value is none.
type MessageContext struct{ TraceParent, TraceState string }

// Get, Set and Keys make a MessageContext the propagator's carrier.
func (m MessageContext) Get(key string) string {
	switch key {
	case "traceparent":
		return m.TraceParent
	case "tracestate":
		return m.TraceState
	}
	return ""
}

func (MessageContext) Set(string, string) {}

func (MessageContext) Keys() []string { return []string{"traceparent", "tracestate"} }

// StartMessage begins the server span of one MCP request. Its parent is
// the trace context the client sent in the message's params._meta when
// that is a valid traceparent; otherwise it is StartServer's (Caddy's span,
// else the HTTP request's traceparent). The message's context wins because
// the HTTP one covers only the HTTP exchange: an MCP client instrumented
// as the conventions ask puts its own operation's span in _meta, and the
// HTTP traceparent below it, when there is one, is its HTTP client's
// span. When both are present and differ, the span links to the HTTP one,
// so neither trace loses the call. A malformed _meta traceparent is
// ignored, as a malformed header is.
func (p *Provider) StartMessage(ctx context.Context, header http.Header, mc MessageContext, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	if mc.TraceParent == "" || !p.Active(ctx) {
		return p.StartServer(ctx, header, name, attrs...)
	}
	mctx := propagation.TraceContext{}.Extract(ctx, mc)
	msc := trace.SpanContextFromContext(mctx)
	if !msc.IsValid() || !msc.IsRemote() {
		return p.StartServer(ctx, header, name, attrs...)
	}
	var tracer trace.Tracer
	httpSC := trace.SpanContextFromContext(ctx)
	if p == nil { // Caddy's tracing only (Active): its span's tracer
		tracer = trace.SpanFromContext(ctx).TracerProvider().Tracer(ScopeName)
	} else {
		tracer = p.tracer
		if !httpSC.IsValid() {
			httpSC = trace.SpanContextFromContext(p.prop.Extract(ctx, propagation.HeaderCarrier(header)))
		}
	}
	opts := []trace.SpanStartOption{serverKind}
	if httpSC.IsValid() && !httpSC.Equal(msc) {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: httpSC}))
	}
	ctx, s := tracer.Start(mctx, name, opts...)
	if !s.IsRecording() {
		return ctx, Span{}
	}
	return asCall(ctx, s, attrs)
}

// UnderRequest is ctx with the span of from, the context of the HTTP
// request that carried an MCP message, in place of the span ctx holds.
// The MCP SDK runs a session's handlers under a context derived from the
// request that opened the session, so ctx would otherwise hold that
// initialize's span, long ended and no parent of this message.
func UnderRequest(ctx, from context.Context) context.Context {
	return trace.ContextWithSpan(ctx, trace.SpanFromContext(from))
}
