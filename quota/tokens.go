package quota

import (
	"context"
	"time"
)

// TokenBudget is a budget of generation tokens (input plus output) per
// Window. A call's size is known only once the model has answered, so the
// budget is checked before the call (is any of it left?) and charged after
// it with what the call used: the call that crosses the line is answered,
// the next one is refused until the window ends. Windows are fixed and
// start with the first charge, so "100,000 an hour" means at most that
// many tokens are charged between the window's start and its end.
type TokenBudget struct {
	Tokens int64
	Window time.Duration
}

// TokenResult is what a check found of a budget.
type TokenResult struct {
	Allowed    bool
	Used       int64         // tokens charged in the current window
	ResetAfter time.Duration // until the window ends and the budget is whole again
}

// Remaining is what is left of b after res (never below zero).
func (res TokenResult) Remaining(b TokenBudget) int64 { return max(0, b.Tokens-res.Used) }

// TokenStore keeps token budgets. An error means the budget could not be
// consulted; the caller must then refuse the call (a check) or log the
// lost charge, never treat it as unlimited.
type TokenStore interface {
	// CheckTokens reports whether key's budget has any tokens left.
	CheckTokens(ctx context.Context, key string, b TokenBudget) (TokenResult, error)
	// ChargeTokens adds n tokens to key's budget, opening a window when
	// none is open; the budget may go past its size (the call already ran).
	ChargeTokens(ctx context.Context, key string, b TokenBudget, n int64) error
}

// checkResult is the answer of a check that found used tokens charged
// and the window ending in resetAfter.
func checkResult(b TokenBudget, used int64, resetAfter time.Duration) TokenResult {
	if used <= 0 {
		return TokenResult{Allowed: true, ResetAfter: 0}
	}
	return TokenResult{Allowed: used < b.Tokens, Used: used, ResetAfter: max(resetAfter, 0)}
}
