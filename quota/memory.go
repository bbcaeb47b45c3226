package quota

import (
	"context"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxKeys bounds the memory a flood of distinct addresses can take: past
// it, budgets that are full again (callers not limited now) are forgotten.
const maxKeys = 100_000

// Memory keeps budgets in this process: one gate's limits, lost on restart.
type Memory struct {
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// NewMemory returns an empty in-process store.
func NewMemory() *Memory {
	return &Memory{now: time.Now, buckets: map[string]*rate.Limiter{}}
}

// Allow implements Store with x/time/rate's token bucket, which with a
// burst of Requests refilled one per Window/Requests is the same budget
// Redis's GCRA keeps. Its float token count leaves nanoseconds of noise in
// the waits (5.999999999s for 6s); they are rounded to the microsecond so
// a whole-second wait reads as whole seconds in Retry-After.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	lim := m.bucket(key, l, now)
	every := l.Window / time.Duration(l.Requests)
	r := lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return Result{RetryAfter: wait.Round(time.Microsecond), ResetAfter: fullIn(lim, l, every, now)}, nil
	}
	return Result{Allowed: true, Remaining: int(lim.TokensAt(now)), ResetAfter: fullIn(lim, l, every, now)}, nil
}

// bucket is key's limiter for l; a changed limit (the policy was edited)
// starts a fresh budget under its own entry.
func (m *Memory) bucket(key string, l Limit, now time.Time) *rate.Limiter {
	k := key + "|" + strconv.Itoa(l.Requests) + "/" + l.Window.String()
	if lim, ok := m.buckets[k]; ok {
		return lim
	}
	if len(m.buckets) >= maxKeys {
		m.forgetFull(now)
	}
	lim := rate.NewLimiter(rate.Every(l.Window/time.Duration(l.Requests)), l.Requests)
	m.buckets[k] = lim
	return lim
}

func (m *Memory) forgetFull(now time.Time) {
	for k, lim := range m.buckets {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(m.buckets, k)
		}
	}
}

func fullIn(lim *rate.Limiter, l Limit, every time.Duration, now time.Time) time.Duration {
	missing := float64(l.Requests) - lim.TokensAt(now)
	return time.Duration(missing * float64(every)).Round(time.Microsecond)
}
