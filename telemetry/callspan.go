package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// gathered is a span of Caddy's tracing (an SDK span: this gate's own
// spans are the recorder's, spanRef, which gather their attributes
// themselves) that gathers the attributes set on it in a buffer and
// hands them to the SDK at once when it ends. The SDK grows a span's
// attribute slice on each SetAttributes (and copies a start option's),
// and a call sets a dozen in six places: gathering them here makes one
// slice of the right size instead (bench/RESULTS.md, Tracing). Child
// spans see it as their parent like the span it wraps. Only the call's
// span is one: a client span sets too few attributes for its own buffer
// to pay (it measured 56 allocations an ask against 54).
type gathered struct {
	trace.Span

	mu    sync.Mutex
	attrs []attribute.KeyValue
}

// callSpan is a call's server span: room for what its request, stages
// and outcome set (callAttrs; more still works, append grows the slice).
type callSpan struct {
	gathered
	buf [callAttrs]attribute.KeyValue
}

const callAttrs = 20

// asCall wraps the recording server span s, and puts the wrapper in ctx
// in its place so that stages and child spans find it. attrs are the
// span's request attributes: they wait in the buffer with the rest. The
// recorder's own spans (spanRef) gather their attributes themselves and
// are not wrapped: only a span of Caddy's tracing (the SDK's) is.
func asCall(ctx context.Context, s trace.Span, attrs []attribute.KeyValue) (context.Context, Span) {
	if rs, ok := s.(*spanRef); ok {
		rs.add(attrs)
		return ctx, Span{s: rs}
	}
	cs := &callSpan{gathered: gathered{Span: s}}
	cs.attrs = append(cs.buf[:0], attrs...)
	return trace.ContextWithSpan(ctx, cs), Span{s: cs}
}

// SetAttributes keeps kv until the span ends.
func (g *gathered) SetAttributes(kv ...attribute.KeyValue) { g.add(kv) }

// add copies kv into the buffer (kv does not escape).
func (g *gathered) add(kv []attribute.KeyValue) {
	g.mu.Lock()
	g.attrs = append(g.attrs, kv...)
	g.mu.Unlock()
}

// End sets the gathered attributes and ends the span.
func (g *gathered) End(opts ...trace.SpanEndOption) {
	g.mu.Lock()
	attrs := g.attrs
	g.attrs = nil
	g.mu.Unlock()
	if len(attrs) > 0 {
		g.Span.SetAttributes(attrs...)
	}
	g.Span.End(opts...)
}
