package quota

import (
	"context"
	"sync/atomic"
)

// Fallback keeps the shared budgets in Primary (Redis) and, while Primary
// cannot answer, in this gate's own Local budgets. A Redis outage must not
// take every route down with it (issue 9: the routes that do not need the
// store keep serving), and a limit the gate cannot share is still never
// lifted: each gate then limits on its own, which is stricter per gate and
// at most N gates' worth overall until Redis is back.
type Fallback struct {
	Primary Store
	Local   Store
	// OnFallback, when set, is told when calls start being counted
	// locally because Primary failed (once per outage: a log line, not a
	// flood of them).
	OnFallback func(err error)

	degraded atomic.Bool
}

// Allow implements Store.
func (f *Fallback) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	res, err := f.Primary.Allow(ctx, key, l)
	if err == nil {
		f.degraded.Store(false)
		return res, nil
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if !f.degraded.Swap(true) && f.OnFallback != nil {
		f.OnFallback(err)
	}
	return f.Local.Allow(ctx, key, l)
}

// Degraded says the last call was counted locally (Primary failing).
func (f *Fallback) Degraded() bool { return f.degraded.Load() }
