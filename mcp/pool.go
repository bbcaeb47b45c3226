package mcp

import (
	"bytes"
	"sync"
)

// buffers are reused across calls: a response is built in a few KB that
// would otherwise be garbage on every call, and on the fast path the
// garbage collector's share grew with every byte allocated.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps one huge result (a page of 1 MB) from pinning its
// buffer in the pool for good.
const maxPooledBuffer = 256 << 10

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	buffers.Put(b)
}

// scratch is a pooled byte slice for appending to: the fast path's text
// rendering and response are appended, not written.
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
