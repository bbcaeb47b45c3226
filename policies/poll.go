package policies

import (
	"context"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"
)

// Default bounds of a bundle poll: OPA's own bundle plugin polls every
// 60-120s; a gate the security team is editing wants to see a new bundle
// sooner.
const (
	defaultPollMin = 10 * time.Second
	defaultPollMax = 60 * time.Second
)

// pollBounds applies the defaults and keeps max >= min.
func pollBounds(lo, hi time.Duration) (time.Duration, time.Duration) {
	if lo <= 0 {
		lo = defaultPollMin
	}
	if hi <= 0 {
		hi = max(defaultPollMax, lo)
	}
	return lo, max(lo, hi)
}

// poll reloads a bundle source until ctx is done. After a success the next
// poll comes pollMin later (with up to 10% jitter, so a fleet of gates
// does not poll in step); each failure in a row doubles the wait up to
// pollMax, so an outage of the bundle server is not hammered. The last
// good policy serves throughout.
func (e *Engine) poll(ctx context.Context) error {
	wait := e.pollMin
	for {
		jitter := time.Duration(rand.Int64N(int64(wait)/10 + 1))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait + jitter):
		}
		if err := e.Reload(ctx); err != nil && ctx.Err() == nil {
			wait = min(2*wait, e.pollMax)
			e.logger.Debug("policy bundle poll backs off", zap.Duration("wait", wait))
			continue
		}
		wait = e.pollMin
	}
}
