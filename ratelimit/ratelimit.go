// Package ratelimit is a small in-process, per-key token bucket: people's
// feedback (POST /answer/feedback) is a write anyone on a public docs site
// may make, so each caller (an identity, or an anonymous reader's address)
// gets a budget that refills over time. It is per gate process: several
// gates each hold their own buckets. Policy.Refusal writes the headers of
// every 429 the gate sends, whichever limit refused the call.
package ratelimit

import (
	"sync"
	"time"
)

// maxKeys bounds the memory a flood of distinct addresses can take: past
// it, full buckets (callers who have not been limited) are forgotten first.
const maxKeys = 100_000

// Limiter grants Burst calls at once per key and one more every Every.
type Limiter struct {
	every time.Duration
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// New allows burst calls at once per key, refilled at one per every.
// burst <= 0 is 1; every <= 0 is a minute.
func New(burst int, every time.Duration) *Limiter {
	if burst <= 0 {
		burst = 1
	}
	if every <= 0 {
		every = time.Minute
	}
	return &Limiter{every: every, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes one call from key's budget. When the budget is spent it
// reports false and how long until the next call would be allowed (what
// Retry-After tells the caller).
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.refill(key, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(l.every))
	return false, wait
}

// refill returns key's bucket topped up for the time since its last use.
func (l *Limiter) refill(key string, now time.Time) *bucket {
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxKeys {
			l.forgetFull(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
		return b
	}
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+float64(elapsed)/float64(l.every))
		b.at = now
	}
	return b
}

// forgetFull drops the buckets that have refilled completely: forgetting
// them changes nothing for their callers.
func (l *Limiter) forgetFull(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+float64(now.Sub(b.at))/float64(l.every) >= l.burst {
			delete(l.buckets, k)
		}
	}
}
