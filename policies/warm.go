package policies

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// A reload builds a new revision with an empty decision cache, so without
// help every caller's next call after it would be evaluated at once (the
// cold stampede). Before the new revision is swapped in, warm re-decides
// the calls the serving revision answered most recently with the new
// revision and fills its cache with those decisions, so the callers of
// the moment hit it from the first request. Nothing from the previous
// revision is reused: every warmed decision is the new policy's own.
const (
	// warmCalls bounds how many recent calls are re-decided.
	warmCalls = 4096
	// warmBudget bounds the time warming may delay the swap; the calls
	// not reached by then are decided on demand as before.
	warmBudget = 2 * time.Second
)

// warm fills next's cache from the calls most recently answered by the
// serving revision's cache, newest first; it returns how many it warmed.
func (e *Engine) warm(ctx context.Context, serving, next *prepared) int {
	if serving == nil || serving.cache == nil || next.cache == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, warmBudget)
	defer cancel()
	start := time.Now()
	calls := serving.cache.recent(warmCalls)
	warmed := 0
	for i := range calls {
		if ctx.Err() != nil {
			break
		}
		if next.warmOne(ctx, &calls[i]) {
			warmed++
		}
	}
	e.logger.Info("policy decision cache warmed", zap.String("revision", next.revision),
		zap.Int("calls", warmed), zap.Int("recent", len(calls)), zap.Duration("took", time.Since(start)))
	return warmed
}

// warmOne decides one call with p and caches the decision; an error
// (evaluation or timeout) caches nothing, as on the request path.
func (p *prepared) warmOne(ctx context.Context, c *cachedCall) bool {
	in := &c.input
	if c.tool {
		if p.tool == nil {
			return false
		}
		d, err := p.evaluateTool(ctx, in, nil)
		if err != nil {
			return false
		}
		p.attribute(ctx, p.tool, in, &d) // as decideTool does
		p.cache.put(keyFor(p.revision+toolKeyTag, in), d, c)
		return true
	}
	d, err := p.evaluate(ctx, in, nil)
	if err != nil {
		return false
	}
	p.attribute(ctx, &p.query, in, &d) // as decide does
	p.cache.put(keyFor(p.revision, in), d, c)
	return true
}
