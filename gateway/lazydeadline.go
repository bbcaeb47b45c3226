package gateway

import (
	"context"
	"sync"
	"time"
)

// lazyDeadline is a context that ends at a deadline, like
// context.WithDeadline, but arms its timer only when something first waits
// on it (Done). A policy decision is bounded by DecisionTimeout, yet almost
// every decision is answered from the engine's cache, which only asks Err:
// two timers per call (the tool gate and the decision) were armed and
// stopped for nothing, about a microsecond each plus a child in the
// request context's map. An evaluation (a cache miss) waits on Done and
// gets a real timer from then on.
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time

	mu     sync.Mutex
	armed  context.Context // the real context once Done was asked for
	cancel context.CancelFunc
	ended  error // set by release when never armed
}

// withLazyDeadline returns a context ending at now+d (or with parent). The
// caller must call its release, as it would context.WithTimeout's cancel.
func withLazyDeadline(parent context.Context, d time.Duration) *lazyDeadline {
	deadline := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && pd.Before(deadline) {
		deadline = pd
	}
	return &lazyDeadline{parent: parent, deadline: deadline}
}

func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// Done arms the timer (once) and returns the real context's channel.
func (c *lazyDeadline) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil {
		return closedChan
	}
	if c.armed == nil {
		c.armed, c.cancel = context.WithDeadline(c.parent, c.deadline)
	}
	return c.armed.Done()
}

// Err is the real context's once armed; before that it is worked out from
// the parent and the clock, as the real context would report it.
func (c *lazyDeadline) Err() error {
	c.mu.Lock()
	armed, ended := c.armed, c.ended
	c.mu.Unlock()
	switch {
	case armed != nil:
		return armed.Err()
	case ended != nil:
		return ended
	}
	return c.errNow()
}

// errNow is what a context.WithDeadline child of the parent would say now.
func (c *lazyDeadline) errNow() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value reads the real context once armed (so context.AfterFunc and
// WithCancel children attach to it directly instead of watching Done with
// a goroutine), the parent otherwise.
func (c *lazyDeadline) Value(key any) any {
	c.mu.Lock()
	armed := c.armed
	c.mu.Unlock()
	if armed != nil {
		return armed.Value(key)
	}
	return c.parent.Value(key)
}

// release ends the context: Err is context.Canceled from then on, unless
// it had already ended. Never armed, it ends without a timer.
func (c *lazyDeadline) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.armed != nil:
		c.cancel()
	case c.ended == nil:
		if c.ended = c.errNow(); c.ended == nil {
			c.ended = context.Canceled
		}
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
