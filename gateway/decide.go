package gateway

import (
	"context"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/backend"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/telemetry"
)

// gateTool asks the policy whether the caller may use the route's tool at all,
// before the body is read (docs/protocol.md, "Order of checks"): a caller
// without the tool gets forbidden_tool whatever its body says, so it cannot
// probe the body schema of a tool it may not use. An allow here only lets the
// body be read; decide makes the call's decision. Both bound the policy by
// DecisionTimeout with a lazyDeadline: a cached decision arms no timer.
func (g *Gateway) gateTool(parent context.Context, rt route, p identity.Principal, rec *audit.Record) error {
	_, span := telemetry.Stage(parent, telemetry.StageToolGate)
	defer g.endDecision(span, rec)
	ctx := withLazyDeadline(policies.WithDecisionID(parent, rec.RequestID), g.cfg.DecisionTimeout)
	defer ctx.release()
	d, err := g.deps.Policy.DecideTool(ctx, policies.Input{
		Endpoint: rt.endpoint,
		Tool:     rt.tool,
		Action:   rt.action,
		SiteMode: g.cfg.SiteMode,
		Caller:   callerInput(p),
	})
	if err != nil {
		return g.policyFailure(parent, rec, err)
	}
	if !d.Allow {
		rec.Decision = auditDecision(d)
		return protocol.NewError(d.Code, denyMessage(d))
	}
	return nil
}

// decide asks the policy. Any engine failure denies (fail closed).
func (g *Gateway) decide(parent context.Context, rt route, c *call) error {
	_, span := telemetry.Stage(parent, telemetry.StageDecide)
	defer g.endDecision(span, c.rec)
	ctx := withLazyDeadline(policies.WithDecisionID(parent, c.rec.RequestID), g.cfg.DecisionTimeout)
	defer ctx.release()
	std := c.req.standard()
	in := policies.Input{
		Endpoint: rt.endpoint,
		Tool:     rt.tool,
		Action:   rt.action,
		SiteMode: g.cfg.SiteMode,
		Caller:   callerInput(c.principal),
		Scope:    std.Scope,
		Pages:    c.req.pages(),
		Page:     policies.PageOf(std.Page),
	}
	if c.session != nil {
		in.Session = &policies.SessionInput{Scope: c.session.Scope}
	}
	d, err := g.deps.Policy.Decide(ctx, in)
	if err != nil {
		return g.policyFailure(parent, c.rec, err)
	}
	c.rec.Decision = auditDecision(d)
	if !d.Allow {
		return protocol.NewError(d.Code, denyMessage(d))
	}
	if err := g.guardAllow(rt, c, d); err != nil {
		c.rec.Decision.Allow = false
		return err
	}
	c.decision = d
	c.rec.EffectiveScope = &d.Scope
	for _, ds := range d.Datasets {
		c.rec.Datasets = append(c.rec.Datasets, ds.ID)
	}
	return nil
}

// policyFailure denies a call the policy could not decide. When the caller
// hung up (parent canceled), the evaluation was only cut short: the error
// goes back as is and serveCall records a client cancel, without an
// error-level log.
func (g *Gateway) policyFailure(parent context.Context, rec *audit.Record, err error) error {
	if backend.ClientClosed(parent) {
		return err
	}
	g.deps.Logger.Error("policy decision failed; denying", zapRequestID(rec.RequestID), zapError(err))
	rec.Decision = &audit.Decision{Allow: false, Code: string(protocol.CodePolicyUnavailable), Revision: g.deps.Policy.Revision()}
	return protocol.NewError(protocol.CodePolicyUnavailable, "the policy could not decide this call; it is denied")
}

func denyMessage(d policies.Decision) string {
	if d.Reason != "" {
		return d.Reason
	}
	return "denied by policy"
}

func callerInput(p identity.Principal) policies.Caller {
	return policies.Caller{Type: p.Type, ID: p.ID, Anonymous: p.Anonymous, Roles: p.Roles, Credential: p.Credential}
}

// auditDecision is the decision as the audit record keeps it: with the
// revision's digest and, for a denial, the rules that decided it
// (docs/security.md, Explaining a denial).
func auditDecision(d policies.Decision) *audit.Decision {
	return &audit.Decision{Allow: d.Allow, Code: string(d.Code), Reason: d.Reason, Revision: d.Revision,
		Digest: d.Digest, Rules: policies.RuleNames(d.Rules)}
}
