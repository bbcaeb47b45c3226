package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
)

// enforceLimits takes the call from each of the decision's budgets in
// order (the caller's own before the shared anonymous one, so a caller
// already over its own budget spends nobody else's), and checks its token
// budgets (checkTokens). The first spent budget refuses the call with 429;
// a store that cannot answer refuses it with 503 (fail closed: a limit the
// gate cannot check is never skipped).
func (g *Gateway) enforceLimits(ctx context.Context, r *http.Request, c *call) error {
	for _, l := range c.decision.Limits {
		key := g.limitKey(r, c, l)
		var err error
		if l.Tokens > 0 {
			err = g.checkTokens(ctx, c, key, l)
		} else {
			err = g.takeCall(ctx, key, l)
		}
		if err != nil {
			return g.limitFailure(ctx, c, err)
		}
	}
	return nil
}

// takeCall takes one call from the request budget l.
func (g *Gateway) takeCall(ctx context.Context, key string, l policies.Limit) error {
	q := quota.Limit{Requests: l.Requests, Window: time.Duration(l.Window) * time.Second}
	res, err := g.deps.Quotas.Allow(ctx, key, q)
	if err != nil {
		return err
	}
	if !res.Allowed {
		return limitedError(l, res)
	}
	return nil
}

// limitFailure passes a refusal on and turns a store's failure into 503.
func (g *Gateway) limitFailure(ctx context.Context, c *call, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) || ctx.Err() != nil {
		return err
	}
	g.deps.Logger.Error("rate-limit store failed; refusing the call", zapRequestID(c.reqID), zapError(err))
	return protocol.NewError(protocol.CodeRateLimitUnavailable, "the rate-limit store is unavailable; retry shortly")
}

// limitKey names the budget l counts the call against.
func (g *Gateway) limitKey(r *http.Request, c *call, l policies.Limit) string {
	if l.Per == policies.PerAnonymous {
		return "all-anonymous:" + l.Name
	}
	if r == nil && c.principal.Anonymous {
		return "anonymous:unknown:" + l.Name
	}
	return g.callerKey(r, c) + ":" + l.Name
}

// limitedError is the 429 of a policy limit: the budget it names is the
// policy's, counted per window.
func limitedError(l policies.Limit, res quota.Result) error {
	p := quota.Policy{Name: l.Name, Quota: l.Requests, Window: time.Duration(l.Window) * time.Second}
	msg := fmt.Sprintf("rate limit %s (%d per %ds) reached; retry later", l.Name, l.Requests, l.Window)
	return rateLimited(msg, p, res.Remaining, res.ResetAfter, res.RetryAfter)
}

// rateLimited is every 429 the gate sends, whichever limit refused the
// call: rate_limited with Retry-After, RateLimit and RateLimit-Policy
// naming the spent budget (quota.Policy.Refusal), so clients back off
// the same way from each.
func rateLimited(msg string, p quota.Policy, remaining int, reset, retryAfter time.Duration) *protocol.Error {
	e := protocol.NewError(protocol.CodeRateLimited, msg)
	e.Header = p.Refusal(remaining, reset, retryAfter)
	return e
}

// copyHeader adds an error's own response headers.
func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}
