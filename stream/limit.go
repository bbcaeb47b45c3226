package stream

import "sync"

// DefaultMaxPerCaller is how many streams one caller may hold open: a few
// tabs of a docs site, not a crawler holding a generation per connection.
const DefaultMaxPerCaller = 4

// Limiter caps the streams each caller holds open. A stream holds a
// generation and a connection for as long as the answer takes, so one
// caller must not be able to hold many.
type Limiter struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

// NewLimiter allows max open streams per caller; max <= 0 takes
// DefaultMaxPerCaller.
func NewLimiter(max int) *Limiter {
	if max <= 0 {
		max = DefaultMaxPerCaller
	}
	return &Limiter{max: max, open: map[string]int{}}
}

// Acquire opens a stream for caller, or reports false when the caller
// already holds the maximum. release gives the slot back; calling it more
// than once is harmless.
func (l *Limiter) Acquire(caller string) (release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[caller] >= l.max {
		return func() {}, false
	}
	l.open[caller]++
	var once sync.Once
	return func() { once.Do(func() { l.done(caller) }) }, true
}

func (l *Limiter) done(caller string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[caller]--; l.open[caller] <= 0 {
		delete(l.open, caller)
	}
}

// Open is how many streams caller holds now.
func (l *Limiter) Open(caller string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[caller]
}
