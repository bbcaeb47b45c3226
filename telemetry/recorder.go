package telemetry

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// spanRecorder is the gate's OpenTelemetry TracerProvider (docs/operators.md,
// Tracing). It records spans itself instead of with the SDK's span: an
// SDK span appends each attribute to a slice, and when it ends builds a
// map of them all to drop duplicates and copies them again, work that
// made three spans cost 22–30 µs of CPU here (bench/README.md, What
// tracing costs). A span here is one allocation holding its attributes
// inline, and duplicates are dropped once, when it is exported. What is
// not the span is the SDK's: its samplers decide, its resource describes
// the process, its exporters (OTLP over HTTP or gRPC) encode and send.
type spanRecorder struct {
	embedded.TracerProvider

	sampler sdktrace.Sampler
	// parentBased: sampler is the SDK's ParentBased with its default
	// delegates, so a valid parent decides (decide).
	parentBased bool
	limits      spanLimits
	res         *resource.Resource
	own         *tracer // the gate's scope, ScopeName
	batch       *batcher
	store       spanStore // the spans' records
}

// spanLimits are the specification's span limits (OTEL_SPAN_*_LIMIT); a
// negative limit is none.
type spanLimits struct {
	attrs, valueLen, events, links int
}

// newRecorder builds the provider the environment describes: the sampler
// (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), the span limits and the
// batch exporter's settings (OTEL_BSP_*), exporting to exp. copies says
// exp keeps nothing it was given once ExportSpans returns, so that the
// spans' records are reused (spanStore).
func newRecorder(getenv func(string) string, exp sdktrace.SpanExporter, copies bool, res *resource.Resource) *spanRecorder {
	cfg := batchFromEnv(getenv)
	r := &spanRecorder{limits: limitsFromEnv(getenv), res: res}
	r.sampler, r.parentBased = samplerFromEnv(getenv)
	r.store = spanStore{r: r, reuse: copies, max: cfg.maxBatch}
	r.batch = newBatcher(exp, cfg, &r.store)
	r.own = &tracer{r: r, scope: instrumentation.Scope{Name: ScopeName}}
	return r
}

// Tracer returns the tracer of an instrumentation scope; the gate's own
// is made once.
func (r *spanRecorder) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	if name == ScopeName && len(opts) == 0 {
		return r.own
	}
	c := trace.NewTracerConfig(opts...)
	return &tracer{r: r, scope: instrumentation.Scope{Name: name, Version: c.InstrumentationVersion(),
		SchemaURL: c.SchemaURL(), Attributes: c.InstrumentationAttributes()}}
}

// tracer makes spans of one instrumentation scope.
type tracer struct {
	embedded.Tracer

	r     *spanRecorder
	scope instrumentation.Scope
}

// Start begins a span as the trace API says (its options: kind,
// attributes, links, a start time, a new root).
func (t *tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg := trace.NewSpanStartConfig(opts...)
	parentCtx := ctx
	if cfg.NewRoot() { // a child all the same, as the SDK counts it
		parentCtx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
		if p, ok := trace.SpanFromContext(ctx).(*spanRef); ok {
			p.addChild()
		}
	}
	s := t.begin(parentCtx, name, cfg.SpanKind(), cfg.Links(), len(cfg.Attributes()), nil)
	if r, ok := s.(*spanRef); ok {
		if ts := cfg.Timestamp(); !ts.IsZero() {
			r.rec.start = ts // not yet shared
		}
		r.add(cfg.Attributes())
	}
	return contextWith(ctx, s), s
}

// begin makes a span under the span context in ctx: the parent's trace,
// or a new one, and a new span id, both random (math/rand/v2); the
// sampler decides whether it records (a spanRef, ref when given, for a
// record with room for attrs attributes and two more) or not
// (unsampled).
// The sampler sees no attributes: the SDK's samplers, the only ones the
// gate builds, read the parent and the trace id alone.
func (t *tracer) begin(ctx context.Context, name string, kind trace.SpanKind, links []trace.Link, attrs int, ref *spanRef) trace.Span {
	psc := trace.SpanContextFromContext(ctx)
	scc := trace.SpanContextConfig{TraceID: psc.TraceID(), SpanID: newSpanID()}
	if !scc.TraceID.IsValid() {
		scc.TraceID = newTraceID()
	}
	res := t.decide(ctx, psc, scc.TraceID, name, kind, links)
	scc.TraceState = res.Tracestate
	scc.TraceFlags = psc.TraceFlags() &^ trace.FlagsSampled
	if res.Decision == sdktrace.RecordAndSample {
		scc.TraceFlags |= trace.FlagsSampled
	}
	sc := trace.NewSpanContext(scc)
	if res.Decision == sdktrace.Drop {
		return &unsampled{sc: sc, r: t.r}
	}
	kind = trace.ValidateSpanKind(kind)
	s := t.r.store.get(kind == trace.SpanKindServer, attrs+len(res.Attributes)+2)
	s.tracer, s.sc, s.name, s.kind = t, sc, name, uint8(kind)
	if psc.IsValid() {
		s.parentID, s.parentFlags, s.parentRemote = psc.SpanID(), psc.TraceFlags(), psc.IsRemote()
	}
	s.start = time.Now()
	if ref == nil {
		ref = newRef(kind)
	}
	ref.rec, ref.gen, ref.sc = s, s.state.Load()>>1, sc
	if p, ok := trace.SpanFromContext(ctx).(*spanRef); ok && p != ref {
		p.addChild()
	}
	s.state.Store(ref.gen << 1) // recording
	ref.add(res.Attributes)
	for _, l := range links {
		ref.AddLink(l)
	}
	return ref
}

// decide is the sampler's decision on a span under psc, the span context
// in ctx. Under a valid parent a parentbased_* sampler (the default)
// follows the parent's sampled flag: the SDK's ParentBased with its
// default delegates (AlwaysSample for a sampled parent, local or remote,
// NeverSample for another), which keep the parent's tracestate. So that
// is decided here without the sampler's call, a third of begin's work
// (TestParentDecidesAsTheSampler holds it to the SDK's decision).
func (t *tracer) decide(ctx context.Context, psc trace.SpanContext, id trace.TraceID, name string, kind trace.SpanKind, links []trace.Link) sdktrace.SamplingResult {
	if t.r.parentBased && psc.IsValid() {
		d := sdktrace.Drop
		if psc.IsSampled() {
			d = sdktrace.RecordAndSample
		}
		return sdktrace.SamplingResult{Decision: d, Tracestate: psc.TraceState()}
	}
	return t.r.sampler.ShouldSample(sdktrace.SamplingParameters{
		ParentContext: ctx, TraceID: id, Name: name, Kind: kind, Links: links,
	})
}

// beginRemote begins a server span whose parent is remote (sc, read
// from the caller's traceparent). While the sampler decides, the new
// span's ref stands for its parent in the context the sampler is given
// (its SpanContext is the parent's until begin gives it its own), so
// that context is then the span's: the propagator's context of the
// remote parent would be two allocations more, used once.
func (t *tracer) beginRemote(ctx context.Context, sc trace.SpanContext, name string, attrs int) (context.Context, trace.Span) {
	ref := &spanRef{sc: sc}
	sctx := withSpan(ctx, ref)
	span := t.begin(sctx, name, trace.SpanKindServer, nil, attrs, ref)
	if span != trace.Span(ref) { // dropped: the context must not hold ref
		return trace.ContextWithSpan(ctx, span), span
	}
	return sctx, ref
}

// newTraceID is a random, valid (non-zero) trace id.
func newTraceID() (id trace.TraceID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

// newSpanID is a random, valid (non-zero) span id.
func newSpanID() (id trace.SpanID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// ForceFlush exports the spans ended so far.
func (r *spanRecorder) ForceFlush(ctx context.Context) error { return r.batch.forceFlush(ctx) }

// Shutdown exports what is queued and shuts the exporter down; spans
// that end afterwards are dropped.
func (r *spanRecorder) Shutdown(ctx context.Context) error { return r.batch.shutdown(ctx) }

// samplerFromEnv is the sampler OTEL_TRACES_SAMPLER names, built with the
// SDK's samplers as the SDK would: parentbased_always_on when unset, and
// when unknown (reported through the error handler, as the SDK does). A
// ratio that is not a number from 0 to 1 is reported and taken as 1.
// parentBased says it is one of the parentbased_* (decide).
func samplerFromEnv(getenv func(string) string) (s sdktrace.Sampler, parentBased bool) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), true
	case "always_on":
		return sdktrace.AlwaysSample(), false
	case "always_off":
		return sdktrace.NeverSample(), false
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), true
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio(arg)), false
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio(arg))), true
	default:
		otel.Handle(fmt.Errorf("tracing: unsupported sampler OTEL_TRACES_SAMPLER=%q, using parentbased_always_on", name))
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), true
	}
}

// ratio is OTEL_TRACES_SAMPLER_ARG for a ratio sampler; 1 when unset.
func ratio(arg string) float64 {
	if arg == "" {
		return 1
	}
	v, err := strconv.ParseFloat(arg, 64)
	if err != nil || v < 0 || v > 1 {
		otel.Handle(fmt.Errorf("tracing: OTEL_TRACES_SAMPLER_ARG=%q is not a ratio from 0 to 1, using 1", arg))
		return 1
	}
	return v
}

// limitsFromEnv reads the span limits: OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT
// (else OTEL_ATTRIBUTE_COUNT_LIMIT, else 128),
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (else
// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, else none), OTEL_SPAN_EVENT_COUNT_LIMIT
// and OTEL_SPAN_LINK_COUNT_LIMIT (128).
func limitsFromEnv(getenv func(string) string) spanLimits {
	return spanLimits{
		attrs:    envInt(getenv, 128, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"),
		valueLen: envInt(getenv, -1, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"),
		events:   envInt(getenv, 128, "OTEL_SPAN_EVENT_COUNT_LIMIT"),
		links:    envInt(getenv, 128, "OTEL_SPAN_LINK_COUNT_LIMIT"),
	}
}

// envInt is the first of keys set, as an integer; def when none is set,
// or when the first set is not an integer (reported).
func envInt(getenv func(string) string, def int, keys ...string) int {
	for _, k := range keys {
		v := strings.TrimSpace(getenv(k))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			otel.Handle(fmt.Errorf("tracing: %s=%q is not an integer, using %d", k, v, def))
			return def
		}
		return n
	}
	return def
}

// unsampled is a span the sampler dropped: it carries its context (so a
// child follows the decision) and records nothing.
type unsampled struct {
	embedded.Span

	sc trace.SpanContext
	r  *spanRecorder
}

func (u *unsampled) End(...trace.SpanEndOption)              {}
func (u *unsampled) AddEvent(string, ...trace.EventOption)   {}
func (u *unsampled) AddLink(trace.Link)                      {}
func (u *unsampled) IsRecording() bool                       { return false }
func (u *unsampled) RecordError(error, ...trace.EventOption) {}
func (u *unsampled) SpanContext() trace.SpanContext          { return u.sc }
func (u *unsampled) SetStatus(codes.Code, string)            {}
func (u *unsampled) SetName(string)                          {}
func (u *unsampled) SetAttributes(...attribute.KeyValue)     {}
func (u *unsampled) TracerProvider() trace.TracerProvider    { return u.r }
