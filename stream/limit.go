package stream

import (
	"errors"
	"sync"
)

// DefaultMaxPerCaller is how many streams one caller may hold open: a few
// tabs of a docs site, not a crawler holding a generation per connection.
const DefaultMaxPerCaller = 4

// DefaultMaxOpen is how many streams one gate process holds open at once,
// every caller together: each holds a RAGFlow generation, the scarce
// resource behind the gate, so a crowd of callers (each within its own
// limit, or many addresses) cannot queue more than RAGFlow can serve.
const DefaultMaxOpen = 256

// Why Acquire refused a stream.
var (
	ErrCallerFull = errors.New("the caller holds its maximum of open streams")
	ErrGateFull   = errors.New("the gate holds its maximum of open streams")
)

// Limiter caps the streams each caller holds open, and all of them
// together. A stream holds a generation and a connection for as long as
// the answer takes, so one caller must not be able to hold many, nor all
// callers more than the backend serves.
type Limiter struct {
	maxPerCaller, maxOpen int
	mu                    sync.Mutex
	open                  map[string]int
	total                 int
}

// NewLimiter allows maxPerCaller open streams per caller and maxOpen in
// all; values <= 0 take DefaultMaxPerCaller and DefaultMaxOpen.
func NewLimiter(maxPerCaller, maxOpen int) *Limiter {
	if maxPerCaller <= 0 {
		maxPerCaller = DefaultMaxPerCaller
	}
	if maxOpen <= 0 {
		maxOpen = DefaultMaxOpen
	}
	return &Limiter{maxPerCaller: maxPerCaller, maxOpen: maxOpen, open: map[string]int{}}
}

// Acquire opens a stream for caller, or says why it may not
// (ErrCallerFull is checked first: a caller over its own limit is told
// so even when the gate is full too). release gives the slot back;
// calling it more than once is harmless.
func (l *Limiter) Acquire(caller string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open[caller] >= l.maxPerCaller:
		return func() {}, ErrCallerFull
	case l.total >= l.maxOpen:
		return func() {}, ErrGateFull
	}
	l.open[caller]++
	l.total++
	var once sync.Once
	return func() { once.Do(func() { l.done(caller) }) }, nil
}

func (l *Limiter) done(caller string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
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

// Total is how many streams are open now, every caller together.
func (l *Limiter) Total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}
