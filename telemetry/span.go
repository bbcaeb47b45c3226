package telemetry

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is one span, or nothing when tracing is off: its zero value
// ignores every call, so the gate's code reads the same either way and an
// untraced call pays for a nil check. It is a value (no allocation).
//
// A stage (Stage) is a Span too, but not a span of its own: it writes its
// attributes on the call's span and its End does nothing. A span costs
// a microsecond or more of CPU to make and export, and a call has six
// stages, so they are the call span's attributes and only the backend
// calls get child spans (docs/operators.md, Tracing).
type Span struct {
	s     trace.Span
	stage string // the stage's name when s is the call's span
}

// Start begins a child span of the span in ctx, with the tracer that made
// the parent (this gate's Provider, or Caddy's own tracing when its
// tracing directive started the request's span). Without a recording
// parent it returns ctx unchanged and a zero Span.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, Span{}
	}
	if own, ok := parent.(*spanRef); ok { // the recorder's: no options to build, attrs copied inline
		s := own.rec.r.own.begin(ctx, name, kind, nil, len(attrs), nil)
		ctx = contextWith(ctx, s)
		rs, ok := s.(*spanRef)
		if !ok {
			return ctx, Span{}
		}
		rs.add(attrs)
		return ctx, Span{s: rs}
	}
	ctx, s := parent.TracerProvider().Tracer(ScopeName).Start(ctx, name, spanKinds[kind], trace.WithAttributes(slices.Clone(attrs)...))
	if !s.IsRecording() { // the sampler dropped it
		return ctx, Span{}
	}
	return ctx, Span{s: s}
}

// spanKinds are the start options of each kind, made once.
var spanKinds = [...]trace.SpanStartOption{
	trace.SpanKindUnspecified: trace.WithSpanKind(trace.SpanKindUnspecified),
	trace.SpanKindInternal:    trace.WithSpanKind(trace.SpanKindInternal),
	trace.SpanKindServer:      trace.WithSpanKind(trace.SpanKindServer),
	trace.SpanKindClient:      trace.WithSpanKind(trace.SpanKindClient),
	trace.SpanKindProducer:    trace.WithSpanKind(trace.SpanKindProducer),
	trace.SpanKindConsumer:    trace.WithSpanKind(trace.SpanKindConsumer),
}

// Stage is one stage of a call (docs/operators.md, Tracing, lists them):
// wikigate.authenticate, wikigate.tool_gate, wikigate.decide,
// wikigate.verify, wikigate.response_check, wikigate.audit. It makes no
// span: what the stage found (the End* helpers) goes on the call's span,
// the span in ctx, and ctx comes back unchanged.
func Stage(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, Span{}
	}
	s := Span{s: parent, stage: name}
	s.Set(attrs...)
	return ctx, s
}

// Recording reports whether the span records (tracing is on for it), so
// a caller can skip building attributes nobody will see.
func (s Span) Recording() bool { return s.s != nil }

// Set adds attributes.
//
// On the recorder's spans (spanRef) and on the call's span under Caddy's
// tracing (callSpan), and so on a stage, attrs are copied into the span's
// buffer; elsewhere a copy goes to the SDK. Either way attrs does not
// escape, so a caller's attribute list stays on its stack.
func (s Span) Set(attrs ...attribute.KeyValue) {
	if s.s == nil || len(attrs) == 0 {
		return
	}
	switch c := s.s.(type) { // concrete: through an interface attrs would escape
	case *spanRef:
		c.add(attrs)
		return
	case *callSpan:
		c.add(attrs)
		return
	}
	s.s.SetAttributes(slices.Clone(attrs)...)
}

// Fail marks the span failed with err (its message is the status
// description; its type, or code when given, is error.type).
// A stage's failure is the call's outcome, which EndCallAs records, so on
// a stage Fail does nothing.
func (s Span) Fail(err error, errType string) {
	if s.s == nil || err == nil || s.stage != "" {
		return
	}
	if errType == "" {
		errType = "_OTHER"
	}
	s.s.SetAttributes(attribute.String("error.type", errType))
	s.s.SetStatus(codes.Error, err.Error())
}

// End ends the span; a stage's End does nothing (the call's span ends
// with the call).
func (s Span) End() {
	if s.s != nil && s.stage == "" {
		s.s.End()
	}
}

// TraceID is the span's trace id in hex, or "" for a zero Span.
func (s Span) TraceID() string {
	if s.s == nil {
		return ""
	}
	if sc := s.s.SpanContext(); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
