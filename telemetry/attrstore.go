package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
)

// The capacities of a span's attribute storage: a span's holds the
// attributes it starts with and two more (the response status, an error
// type) in the smallest that fits; a server span, a call's, always has
// the largest (a call sets about twenty: docs/operators.md, Tracing). A
// span that sets more grows out of its storage (append).
var attrSizes = [...]int{
	6,  // a retrieval's or a backend request's span
	12, // a model call's
	24, // a call's
}

// attrStore is the recorder's attribute storage: a bounded free list of
// buffers of each size in attrSizes, which spans take when they start and
// the batch goroutine gives back once the exporter is done with them.
// A span's attributes were 60% of the bytes tracing allocated a call
// (bench/README.md, What tracing costs), and the GC's work grows with
// those bytes: reused, they cost neither an allocation nor a collection.
//
// Storage is given back only when the exporter keeps nothing it was
// given once ExportSpans returns (reuse, Options.ExportCopies): an
// exporter that keeps spans (tracetest.InMemoryExporter keeps each
// span's Attributes slice) would see a later span's attributes in an
// earlier one's. Otherwise each span's storage is its own and the GC's.
//
// Only storage is reused, never a span: a context may hold an ended span
// forever (trace.SpanFromContext), and what it reads of it (its
// SpanContext, IsRecording, a late SetAttributes that does nothing) must
// stay that span's.
type attrStore struct {
	reuse bool
	max   int // buffers kept of each size

	mu   sync.Mutex
	free [len(attrSizes)][][]attribute.KeyValue

	back [len(attrSizes)][][]attribute.KeyValue // put's, sorted by size (batch goroutine)
}

// sizeFor is the index in attrSizes of the storage a span starting with
// attrs attributes (two more counted) gets.
func sizeFor(server bool, attrs int) int {
	for i, n := range attrSizes {
		if attrs <= n && (!server || i == len(attrSizes)-1) {
			return i
		}
	}
	return len(attrSizes) - 1
}

// get is empty storage for a span that starts with attrs attributes.
func (a *attrStore) get(server bool, attrs int) []attribute.KeyValue {
	i := sizeFor(server, attrs)
	if a.reuse {
		a.mu.Lock()
		if n := len(a.free[i]); n > 0 {
			buf := a.free[i][n-1]
			a.free[i][n-1] = nil
			a.free[i] = a.free[i][:n-1]
			a.mu.Unlock()
			return buf
		}
		a.mu.Unlock()
	}
	return make([]attribute.KeyValue, 0, attrSizes[i])
}

// put takes back the storage of spans whose export has returned
// (batch goroutine). Only storage of one of the sizes is kept (a span
// that grew out of its own has storage the GC collects, or a grown one
// of the next size), up to max of each size. It is cleared first, so
// that it holds no value of a span gone, and sorted by size outside the
// lock: a span starting meanwhile waits only for the lists' appends.
func (a *attrStore) put(spans []*recSpan) {
	if !a.reuse {
		return
	}
	for _, s := range spans {
		buf := s.release()
		clear(buf) // past its length it is already zero: set appends, dedupe clears what it drops
		for i, n := range attrSizes {
			if cap(buf) == n {
				a.back[i] = append(a.back[i], buf[:0])
				break
			}
		}
	}
	a.mu.Lock()
	for i, back := range a.back {
		n := min(len(back), a.max-len(a.free[i]))
		a.free[i] = append(a.free[i], back[:n]...)
	}
	a.mu.Unlock()
	for i := range a.back {
		clear(a.back[i])
		a.back[i] = a.back[i][:0]
	}
}

// drop empties the free lists (at shutdown).
func (a *attrStore) drop() {
	a.mu.Lock()
	clear(a.free[:])
	a.mu.Unlock()
}
