package gateway

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/ragflow"
)

// tokenCharge is a token budget an admitted call is charged once it has
// generated: the budget's key and size.
type tokenCharge struct {
	key    string
	budget quota.TokenBudget
}

// tokenChargeTimeout bounds charging a budget after the answer is made:
// the caller may have hung up by then, and the charge must still land.
const tokenChargeTimeout = 2 * time.Second

// checkTokens refuses the call with 429 when the token budget l is spent
// (docs/operators.md, Token accounting and budgets), and otherwise remembers it to be
// charged with what the call generates.
func (g *Gateway) checkTokens(ctx context.Context, c *call, key string, l policies.Limit) error {
	b := quota.TokenBudget{Tokens: int64(l.Tokens), Window: time.Duration(l.Window) * time.Second}
	res, err := g.deps.Tokens.CheckTokens(ctx, key, b)
	if err != nil {
		return err
	}
	if !res.Allowed {
		p := quota.Policy{Name: l.Name, Quota: l.Tokens, Window: b.Window}
		msg := fmt.Sprintf("token budget %s (%d tokens per %ds) spent; retry later", l.Name, l.Tokens, l.Window)
		return rateLimited(msg, p, int(res.Remaining(b)), res.ResetAfter, res.ResetAfter)
	}
	c.tokenCharges = append(c.tokenCharges, tokenCharge{key: key, budget: b})
	return nil
}

// countTokens records what one generation cost in the call's audit record
// and charges the call's token budgets with it. A charge that fails is
// logged: the answer is already made, and refusing it now would spend
// the tokens for nothing.
func (g *Gateway) countTokens(ctx context.Context, c *call, u ragflow.Usage) {
	c.rec.AddTokens(u.InputTokens, u.OutputTokens, u.Estimated)
	if len(c.tokenCharges) == 0 || u.Total() <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tokenChargeTimeout)
	defer cancel()
	for _, tc := range c.tokenCharges {
		if err := g.deps.Tokens.ChargeTokens(ctx, tc.key, tc.budget, int64(u.Total())); err != nil {
			g.deps.Logger.Warn("token budget not charged", zapRequestID(c.reqID), zap.Int("tokens", u.Total()), zapError(err))
		}
	}
}
