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

// spanStore is the recorder's span records (recSpan) with their
// attribute storage: bounded free lists, one for each size of storage in
// attrSizes, which spans take when they begin and the batch goroutine
// gives back once the exporter is done with them. A span's record and
// attributes were four fifths of the bytes tracing allocated a call
// (bench/README.md, What tracing costs), and the GC's work grows with
// those bytes: reused, they cost neither an allocation nor a collection.
// What a span allocates is its spanRef, a tenth of a record and its
// storage.
//
// Records are given back only when the exporter keeps nothing it was
// given once ExportSpans returns (reuse, Options.ExportCopies): an
// exporter that keeps spans (tracetest.InMemoryExporter keeps each
// span's Attributes slice) would see a later span's in an earlier one.
// Otherwise each record is its span's and the GC's.
type spanStore struct {
	r     *spanRecorder
	reuse bool
	max   int // records kept of each size

	mu   sync.Mutex
	free [len(attrSizes)][]*recSpan

	back [len(attrSizes)][]*recSpan // put's, sorted by size (batch goroutine)
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

// get is a record, not recording, for a span that starts with attrs
// attributes.
func (st *spanStore) get(server bool, attrs int) *recSpan {
	i := sizeFor(server, attrs)
	if st.reuse {
		st.mu.Lock()
		if n := len(st.free[i]); n > 0 {
			s := st.free[i][n-1]
			st.free[i][n-1] = nil
			st.free[i] = st.free[i][:n-1]
			st.mu.Unlock()
			return s
		}
		st.mu.Unlock()
	}
	s := &recSpan{r: st.r}
	s.state.Store(1)
	s.attrs = make([]attribute.KeyValue, 0, attrSizes[i])
	return s
}

// put takes back the records of spans whose export has returned (batch
// goroutine). Each is cleared but for its storage, which is cleared too
// (it holds no value of a span gone), and given a new generation, not
// recording: the refs of the span it was are stale. Only a record whose
// storage is one of the sizes is kept (a span that grew out of its own
// has storage of its own size), up to max of each size; the rest are
// the GC's. The records are sorted by size outside the lock: a span
// beginning meanwhile waits only for the lists' appends.
func (st *spanStore) put(spans []*recSpan) {
	if !st.reuse {
		return
	}
	for _, s := range spans {
		buf := s.attrs
		clear(buf) // past its length it is already zero: set appends, dedupe clears what it drops
		s.recData = recData{attrs: buf[:0]}
		s.state.Store((s.state.Load()>>1+1)<<1 | 1)
		for i, n := range attrSizes {
			if cap(buf) == n {
				st.back[i] = append(st.back[i], s)
				break
			}
		}
	}
	st.mu.Lock()
	for i, back := range st.back {
		n := min(len(back), st.max-len(st.free[i]))
		st.free[i] = append(st.free[i], back[:n]...)
	}
	st.mu.Unlock()
	for i := range st.back {
		clear(st.back[i])
		st.back[i] = st.back[i][:0]
	}
}

// drop empties the free lists (at shutdown).
func (st *spanStore) drop() {
	st.mu.Lock()
	clear(st.free[:])
	st.mu.Unlock()
}
