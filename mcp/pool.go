package mcp

import "sync"

// maxPooledBuffer keeps one huge result (a page of 1 MB) from pinning its
// buffer in the pool for good. Responses are built in a few KB that would
// otherwise be garbage on every call, and on the fast path the garbage
// collector's share grew with every byte allocated: the scratch slices
// below and the outputs (render.go) are pooled.
const maxPooledBuffer = 256 << 10

// scratch is a pooled byte slice for appending to: the fast path's
// responses are appended, not written.
type scratch struct{ b []byte }

var scratches = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratches.Get().(*scratch) }

// release returns s to the pool with grown, the slice appended to s.b, so
// the next call starts with its capacity.
func (s *scratch) release(grown []byte) {
	if cap(grown) > maxPooledBuffer {
		return
	}
	s.b = grown[:0]
	scratches.Put(s)
}
