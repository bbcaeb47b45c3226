package gateway

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/wikigate/wikigate/quota"
)

// peopleFeedbackEndpoint is where people send feedback: the no-answer
// action of an answer on /answer/* names it.
const peopleFeedbackEndpoint = "/answer/feedback"

// FeedbackLimit is the per-caller budget of POST /answer/feedback: Burst
// submissions at once, then one more every Every. Zero values take the
// defaults (DefaultFeedbackBurst, DefaultFeedbackEvery).
type FeedbackLimit struct {
	Burst int
	Every time.Duration
}

// A reader reports a handful of gaps in a visit, not one a second: the
// default lets 5 through at once and one more per minute.
const (
	DefaultFeedbackBurst = 5
	DefaultFeedbackEvery = time.Minute
)

func applyFeedbackDefaults(f *FeedbackLimit) {
	if f.Burst <= 0 {
		f.Burst = DefaultFeedbackBurst
	}
	if f.Every <= 0 {
		f.Every = DefaultFeedbackEvery
	}
}

// peopleFeedbackRoute is create_feedback for people: the /answer/* door
// (anonymous in public-read when the policy accepts anonymous feedback,
// SSO in authenticated-read, agents too), the agent tool's body,
// idempotency and de-duplication (runFeedback), behind a per-caller rate
// limit checked once the call is decided and before the store is touched.
func (g *Gateway) peopleFeedbackRoute(limits *quota.Keyed) route {
	return route{
		endpoint: peopleFeedbackEndpoint, tool: "create_feedback", action: "write", answer: true,
		decode: decodeAs[feedbackRequest],
		bind:   limitCaller(g, limits),
		run:    g.runFeedback,
	}
}

// peopleFeedbackPolicy names the people_limit budget in its 429.
const peopleFeedbackPolicy = "people-feedback"

// limitCaller takes one submission from the caller's budget. It runs as
// the route's bind (after the body is validated, before the policy
// decides), so a flood is refused without a policy evaluation or a store
// write, and a refused call never reaches the store.
func limitCaller(g *Gateway, limits *quota.Keyed) func(context.Context, *http.Request, *call) error {
	p := limits.Policy(peopleFeedbackPolicy)
	return func(_ context.Context, r *http.Request, c *call) error {
		res := limits.Allow(g.callerKey(r, c))
		if res.Allowed {
			return nil
		}
		return rateLimited("too much feedback from this caller; wait before sending more", p, 0, res.ResetAfter, res.RetryAfter)
	}
}

// feedbackEndpointFor is the route a no-answer's create_feedback action
// names: /answer/feedback for answers on /answer/* (people), when this gate
// serves it; nothing for the agent tools, whose action is the tool itself.
func (g *Gateway) feedbackEndpointFor(endpoint string) string {
	if !strings.HasPrefix(endpoint, "/answer/") {
		return ""
	}
	if _, ok := g.routes[peopleFeedbackEndpoint]; !ok {
		return ""
	}
	return peopleFeedbackEndpoint
}

// servedWriteTools are the write tools the policy grants that this gate
// serves: none without a feedback store, so a no-answer's actions never
// offer (enabled) a report that no route would take.
func (g *Gateway) servedWriteTools(granted []string) []string {
	if g.deps.Feedback == nil {
		return nil
	}
	return granted
}
