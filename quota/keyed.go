package quota

import (
	"context"
	"time"
)

// Keyed is one budget the gate sets itself, held per key in this process:
// people's feedback (POST /answer/feedback) is a write anyone on a public
// docs site may make, so each caller (an identity, or an anonymous
// reader's address) gets Burst calls at once and one more every Every. It
// is Memory under a fixed Limit, so it is the same token bucket as the
// policy's limits; several gates each hold their own.
type Keyed struct {
	mem   *Memory
	limit Limit
}

// NewKeyed allows burst calls at once per key, refilled at one per every.
// burst <= 0 is 1; every <= 0 is a minute.
func NewKeyed(burst int, every time.Duration) *Keyed {
	if burst <= 0 {
		burst = 1
	}
	if every <= 0 {
		every = time.Minute
	}
	return &Keyed{mem: NewMemory(), limit: Limit{Requests: burst, Window: time.Duration(burst) * every}}
}

// Allow takes one call from key's budget. A refused Result says how long
// until the next call would pass (RetryAfter, what Retry-After tells the
// caller) and until the whole budget is back (ResetAfter, RateLimit's t).
func (k *Keyed) Allow(key string) Result {
	res, _ := k.mem.Allow(context.Background(), key, k.limit) // Memory never fails
	return res
}

// Policy describes k's budget as the RateLimit-Policy item name: Burst
// calls, the whole of them earned back within Burst*Every.
func (k *Keyed) Policy(name string) Policy {
	return Policy{Name: name, Quota: k.limit.Requests, Window: k.limit.Window}
}
