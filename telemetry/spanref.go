package telemetry

import (
	"context"
	"reflect"
	"runtime/debug"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// spanRef is a span the recorder records, as its maker and contexts hold
// it: the trace.Span, and the context with it as current span
// (trace.ContextWithSpan's, without the allocation of a context of its
// own: spanKey). It is the span's for good, since a context may keep it
// forever, and points to the span's record (recSpan) while the record is
// that span's, which its generation tells: once the record is exported
// and reused (spanStore), the ref reports what it kept of its span (its
// SpanContext, whether it is a client span) and that it no longer records, and a late
// SetAttributes or End does nothing, to either span.
type spanRef struct {
	embedded.Span
	context.Context // the parent context; nil unless refIsContext

	rec *recSpan
	gen uint64 // rec's generation while it is this span's
	sc  trace.SpanContext
	tp  *traceparentValue // a client span's (clientRef), and only a client span's
}

// clientRef is a client span's ref, with the storage of the traceparent
// its backend request carries (Inject) in the same allocation.
type clientRef struct {
	spanRef
	value traceparentValue
}

// newRef is a new span's ref: a client span's has its traceparent
// storage.
func newRef(kind trace.SpanKind) *spanRef {
	if kind != trace.SpanKindClient {
		return new(spanRef)
	}
	c := new(clientRef)
	c.tp = &c.value
	return &c.spanRef
}

// claimTraceparent is the span's own traceparent storage the first time
// it is asked for while the span records, else nil: a second request
// under the span (a retry) gets storage of its own, so that no two
// requests share a header value.
func (r *spanRef) claimTraceparent() *traceparentValue {
	if r.tp == nil {
		return nil
	}
	s, ok := r.lock()
	first := ok && !s.tpUsed
	if first {
		s.tpUsed = true
	}
	s.mu.Unlock()
	if !first {
		return nil
	}
	return r.tp
}

// spanKey is the key trace.ContextWithSpan files the current span under
// (unexported in package trace), as trace.SpanFromContext asks for it;
// refIsContext says a spanRef answering it is found by
// trace.SpanFromContext (learnSpanKey checks it: otherwise the gate uses
// trace.ContextWithSpan, one allocation more a span).
var (
	spanKey      any
	refIsContext bool
)

func init() { learnSpanKey() }

// keySpy is a context that notes the key it was asked for.
type keySpy struct {
	context.Context
	key any
}

func (k *keySpy) Value(key any) any {
	k.key = key
	return nil
}

// learnSpanKey sets spanKey and refIsContext.
func learnSpanKey() {
	spy := &keySpy{Context: context.Background()}
	trace.SpanFromContext(spy)
	if spy.key == nil || !reflect.TypeOf(spy.key).Comparable() {
		return
	}
	spanKey = spy.key
	probe := &spanRef{Context: context.Background()}
	ctx, cancel := context.WithCancel(probe)
	defer cancel()
	refIsContext = trace.SpanFromContext(probe) == trace.Span(probe) && trace.SpanFromContext(ctx) == trace.Span(probe)
}

// Value is the span for the current span's key, else the parent's value.
func (r *spanRef) Value(key any) any {
	if key == spanKey {
		return r
	}
	return r.Context.Value(key)
}

// withSpan is ctx with the recorded span r as its current span: r itself.
func withSpan(ctx context.Context, r *spanRef) context.Context {
	if !refIsContext {
		return trace.ContextWithSpan(ctx, r)
	}
	r.Context = ctx
	return r
}

// contextWith is ctx with span (a begin's) as its current span.
func contextWith(ctx context.Context, span trace.Span) context.Context {
	if r, ok := span.(*spanRef); ok {
		return withSpan(ctx, r)
	}
	return trace.ContextWithSpan(ctx, span)
}

// lock locks the record and reports whether it is still this span's and
// records; the caller unlocks it either way.
func (r *spanRef) lock() (*recSpan, bool) {
	s := r.rec
	s.mu.Lock()
	return s, s.state.Load() == r.gen<<1
}

// add copies kv into the span (kv does not escape); nothing after End.
func (r *spanRef) add(kv []attribute.KeyValue) {
	if len(kv) == 0 {
		return
	}
	s, ok := r.lock()
	if ok {
		limit := s.r.limits.attrs
		for i := range kv {
			s.set(&kv[i], limit)
		}
	}
	s.mu.Unlock()
}

// addChild counts a child begun while the span records, as the SDK does.
func (r *spanRef) addChild() {
	s, ok := r.lock()
	if ok {
		s.children++
	}
	s.mu.Unlock()
}

// SetAttributes sets attributes; a key set again takes the last value.
func (r *spanRef) SetAttributes(kv ...attribute.KeyValue) { r.add(kv) }

// End ends the span (at the time an option gives, else now, measured on
// the monotonic clock from its start) and queues it for export when it
// is sampled. A second End does nothing.
func (r *spanRef) End(opts ...trace.SpanEndOption) {
	s, ok := r.lock()
	if !ok {
		s.mu.Unlock()
		return
	}
	end := s.start.Add(time.Since(s.start))
	if len(opts) > 0 {
		if c := trace.NewSpanEndConfig(opts...); !c.Timestamp().IsZero() {
			end = c.Timestamp()
		}
	}
	s.dur = end.Sub(s.start)
	s.state.Store(r.gen<<1 | 1)
	s.mu.Unlock()
	if r.sc.IsSampled() {
		s.r.batch.enqueue(s)
	}
}

// IsRecording reports whether the span still records (has not ended).
// A ref with no record yet (beginRemote's, while the sampler decides)
// does not.
func (r *spanRef) IsRecording() bool {
	return r.rec != nil && r.rec.state.Load() == r.gen<<1
}

// SpanContext is the span's identity.
func (r *spanRef) SpanContext() trace.SpanContext { return r.sc }

// isClient reports whether the span is a client span (isClient,
// telemetry.Transport, asks a parent).
func (r *spanRef) isClient() bool { return r.tp != nil }

// TracerProvider is the recorder, so children are recorded alike.
func (r *spanRef) TracerProvider() trace.TracerProvider { return r.rec.r }

// SetStatus sets the status as the SDK does: Ok is final, Unset changes
// nothing, and only Error keeps a description.
func (r *spanRef) SetStatus(code codes.Code, description string) {
	s, ok := r.lock()
	if ok {
		s.setStatus(code, description)
	}
	s.mu.Unlock()
}

// SetName renames the span.
func (r *spanRef) SetName(name string) {
	s, ok := r.lock()
	if ok {
		s.name = name
	}
	s.mu.Unlock()
}

// AddEvent records an event; past the event limit the oldest goes.
func (r *spanRef) AddEvent(name string, opts ...trace.EventOption) {
	if !r.IsRecording() {
		return
	}
	c := trace.NewEventConfig(opts...)
	r.addEvent(sdktrace.Event{Name: name, Attributes: slices.Clone(c.Attributes()), Time: c.Timestamp()})
}

func (r *spanRef) addEvent(e sdktrace.Event) {
	s, ok := r.lock()
	if ok {
		s.addEvent(e)
	}
	s.mu.Unlock()
}

// RecordError records err as an exception event (the semantic
// conventions' exception.type and exception.message, and
// exception.stacktrace when asked for), as the SDK does.
func (r *spanRef) RecordError(err error, opts ...trace.EventOption) {
	if err == nil || !r.IsRecording() {
		return
	}
	c := trace.NewEventConfig(opts...)
	attrs := append(slices.Clone(c.Attributes()),
		attribute.String("exception.type", typeName(err)), attribute.String("exception.message", err.Error()))
	if c.StackTrace() {
		attrs = append(attrs, attribute.String("exception.stacktrace", string(debug.Stack())))
	}
	r.addEvent(sdktrace.Event{Name: "exception", Attributes: attrs, Time: c.Timestamp()})
}

// AddLink links the span to another; an empty link is ignored and past
// the link limit the oldest goes.
func (r *spanRef) AddLink(l trace.Link) {
	if !l.SpanContext.IsValid() && len(l.Attributes) == 0 && l.SpanContext.TraceState().Len() == 0 {
		return
	}
	s, ok := r.lock()
	if ok {
		s.addLink(l)
	}
	s.mu.Unlock()
}
