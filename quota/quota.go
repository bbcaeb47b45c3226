// Package quota enforces the rate limits the policy sets on a call (the
// decision's limits): each is a GCRA budget of Requests per Window under a
// key. Memory keeps the budgets in this gate's process; Redis keeps them in
// Redis, so every gate sharing it draws on the same budget. Keyed is a
// budget the gate sets itself (people's feedback), and Policy.Refusal
// writes the headers of every 429 the gate sends, whichever limit refused
// the call.
package quota

import (
	"context"
	"time"
)

// Limit is one budget: Requests calls per Window, all of which may come at
// once (burst = Requests), refilled evenly over the window.
type Limit struct {
	Requests int
	Window   time.Duration
}

// Result is what one call took from a budget.
type Result struct {
	Allowed    bool
	Remaining  int           // calls left right now
	RetryAfter time.Duration // when refused: until one call is allowed again
	ResetAfter time.Duration // until the budget is full again
}

// Store takes one call from key's budget. An error means the budget could
// not be consulted (Redis down); the caller must refuse the call, never
// let it through unlimited.
type Store interface {
	Allow(ctx context.Context, key string, l Limit) (Result, error)
}
