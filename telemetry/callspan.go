package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// callSpan is a call's server span that gathers the attributes set on it
// (the stages', the outcome's) in a fixed buffer and hands them to the
// SDK at once when it ends. The SDK grows the span's attribute slice on
// each SetAttributes, and a call sets a dozen in six places: gathering
// them here makes one slice of the right size instead (bench/README.md,
// Tracing). Child spans see it as their parent like the span it wraps.
type callSpan struct {
	trace.Span

	mu    sync.Mutex
	attrs []attribute.KeyValue
	buf   [callAttrs]attribute.KeyValue
}

// callAttrs is room for what a call's stages and outcome set; more still
// works (append grows the slice).
const callAttrs = 16

// asCall wraps the recording server span s, and puts the wrapper in ctx
// in its place so that stages and child spans find it.
func asCall(ctx context.Context, s trace.Span) (context.Context, Span) {
	cs := &callSpan{Span: s}
	cs.attrs = cs.buf[:0]
	return trace.ContextWithSpan(ctx, cs), Span{s: cs}
}

// SetAttributes keeps kv until the span ends.
func (c *callSpan) SetAttributes(kv ...attribute.KeyValue) { c.add(kv) }

// add copies kv into the buffer (kv does not escape).
func (c *callSpan) add(kv []attribute.KeyValue) {
	c.mu.Lock()
	c.attrs = append(c.attrs, kv...)
	c.mu.Unlock()
}

// End sets the gathered attributes and ends the span.
func (c *callSpan) End(opts ...trace.SpanEndOption) {
	c.mu.Lock()
	attrs := c.attrs
	c.attrs = nil
	c.mu.Unlock()
	if len(attrs) > 0 {
		c.Span.SetAttributes(attrs...)
	}
	c.Span.End(opts...)
}
