package quota

import (
	"context"
	"sync/atomic"
)

// FallbackTokens is Fallback for token budgets: Primary (Redis) while it
// answers, this gate's Local budgets while it does not.
type FallbackTokens struct {
	Primary TokenStore
	Local   TokenStore
	// OnFallback, when set, is told once per outage.
	OnFallback func(err error)

	degraded degradedFlag
}

// CheckTokens implements TokenStore.
func (f *FallbackTokens) CheckTokens(ctx context.Context, key string, b TokenBudget) (TokenResult, error) {
	res, err := f.Primary.CheckTokens(ctx, key, b)
	if err == nil {
		f.degraded.clear()
		return res, nil
	}
	if ctx.Err() != nil {
		return TokenResult{}, ctx.Err()
	}
	f.degraded.set(err, f.OnFallback)
	return f.Local.CheckTokens(ctx, key, b)
}

// ChargeTokens implements TokenStore.
func (f *FallbackTokens) ChargeTokens(ctx context.Context, key string, b TokenBudget, n int64) error {
	err := f.Primary.ChargeTokens(ctx, key, b, n)
	if err == nil {
		f.degraded.clear()
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f.degraded.set(err, f.OnFallback)
	return f.Local.ChargeTokens(ctx, key, b, n)
}

// degradedFlag remembers an outage so it is told once, not per call.
type degradedFlag struct{ on atomic.Bool }

func (d *degradedFlag) clear() { d.on.Store(false) }

func (d *degradedFlag) set(err error, tell func(error)) {
	if !d.on.Swap(true) && tell != nil {
		tell(err)
	}
}
