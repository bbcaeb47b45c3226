package h1

import (
	"context"
	"errors"
	"io"
	"sync"
)

// errReadOnClosed is net/http's answer to a read after Close.
var errReadOnClosed = errors.New("http: read on closed response body")

// body is a response's body: it owns the connection until the body's end
// (which returns the connection to the pool when both sides keep it) or
// Close (which closes it: the rest of the body is not read, as net/http
// does). A Read and a Close may come from different goroutines.
type body struct {
	t    *Transport
	c    *conn // nil once released
	rc   io.ReadCloser
	ctx  context.Context
	stop func() bool // unregisters the context's abort
	keep bool        // neither side asked to close

	mu     sync.Mutex
	closed bool
	rerr   error // sticky error (io.EOF at the end)
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	closed, rerr := b.closed, b.rerr
	b.mu.Unlock()
	if closed {
		return 0, errReadOnClosed
	}
	if rerr != nil {
		return 0, rerr
	}
	n, err := b.rc.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == io.EOF {
		b.release(b.keep)
	} else {
		err = ctxErr(b.ctx, err)
		b.release(false)
	}
	if b.rerr == nil {
		b.rerr = err
	}
	return n, err
}

func (b *body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	b.release(false)
	return nil
}

// release gives the connection back to the pool (keep) or closes it, once.
// A connection whose context's abort already ran (or is running) is
// closed: its deadline may be in the past.
func (b *body) release(keep bool) {
	c := b.c
	if c == nil {
		return
	}
	b.c = nil
	if !b.stop() || !keep {
		c.close()
		return
	}
	c.reused = true
	b.t.pool.put(c)
}
