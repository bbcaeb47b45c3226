package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
)

// enforceLimits takes the call from each of the decision's budgets in
// order (the caller's own before the shared anonymous one, so a caller
// already over its own budget spends nobody else's). The first spent
// budget refuses the call with 429; a store that cannot answer refuses it
// with 503 (fail closed: a limit the gate cannot check is never skipped).
func (g *Gateway) enforceLimits(ctx context.Context, r *http.Request, c *call) error {
	for _, l := range c.decision.Limits {
		q := quota.Limit{Requests: l.Requests, Window: time.Duration(l.Window) * time.Second}
		res, err := g.deps.Quotas.Allow(ctx, g.limitKey(r, c, l), q)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			g.deps.Logger.Error("rate-limit store failed; refusing the call", zapRequestID(c.reqID), zapError(err))
			e := protocol.NewError(protocol.CodeRateLimitUnavailable, "the rate-limit store is unavailable; retry shortly")
			return e
		}
		if !res.Allowed {
			return limitedError(l, res)
		}
	}
	return nil
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

// limitedError is the 429: Retry-After, and the IETF draft's RateLimit
// and RateLimit-Policy fields naming the budget that is spent.
func limitedError(l policies.Limit, res quota.Result) error {
	e := protocol.NewError(protocol.CodeRateLimited,
		fmt.Sprintf("rate limit %s (%d per %ds) reached; retry later", l.Name, l.Requests, l.Window))
	e.RetryAfter = ceilSeconds(res.RetryAfter)
	e.Header = http.Header{}
	e.Header.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", l.Name, l.Requests, l.Window))
	e.Header.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%s", l.Name, res.Remaining, strconv.Itoa(ceilSeconds(res.ResetAfter))))
	return e
}

func ceilSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// copyHeader adds an error's own response headers.
func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}
