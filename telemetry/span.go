package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is one span, or nothing when tracing is off: its zero value
// ignores every call, so the gate's code reads the same either way and an
// untraced call pays for a nil check. It is a value (no allocation).
type Span struct{ s trace.Span }

// Start begins a child span of the span in ctx, with the tracer that made
// the parent (this gate's Provider, or Caddy's own tracing when its
// tracing directive started the request's span). Without a recording
// parent it returns ctx unchanged and a zero Span.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, Span{}
	}
	ctx, s := parent.TracerProvider().Tracer(ScopeName).Start(ctx, name,
		trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, Span{s}
}

// Stage begins an internal span for one stage of a call (README, Tracing
// lists them): wikigate.authenticate, wikigate.tool_gate, wikigate.decide,
// wikigate.verify, wikigate.response_check, wikigate.audit.
func Stage(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	return Start(ctx, name, trace.SpanKindInternal, attrs...)
}

// Recording reports whether the span records (tracing is on for it), so
// a caller can skip building attributes nobody will see.
func (s Span) Recording() bool { return s.s != nil }

// Set adds attributes.
func (s Span) Set(attrs ...attribute.KeyValue) {
	if s.s != nil {
		s.s.SetAttributes(attrs...)
	}
}

// Fail marks the span failed with err (its message is the status
// description; its type, or code when given, is error.type).
func (s Span) Fail(err error, errType string) {
	if s.s == nil || err == nil {
		return
	}
	if errType == "" {
		errType = "_OTHER"
	}
	s.s.SetAttributes(attribute.String("error.type", errType))
	s.s.SetStatus(codes.Error, err.Error())
}

// End ends the span.
func (s Span) End() {
	if s.s != nil {
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
