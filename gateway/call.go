package gateway

import (
	"context"
	"net/http"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/backend"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/sessions"
)

// call is one request on its way through the pipeline.
type call struct {
	reqID     string
	pathID    string // the {sessionId} of /answer/sessions/{sessionId}/turns
	principal identity.Principal
	req       request
	decision  policies.Decision
	rec       *audit.Record
	session   *sessions.Session // set by a session route's bind
}

// serveCall runs the checks in the protocol's order (§6.2): method, body
// size, credential, request schema, policy (tool, scope, dataset, write),
// then the tool. The first failure answers; a denied call never reaches a
// backend. Exactly one audit record is written, whatever happens.
func (g *Gateway) serveCall(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route) {
	rec := audit.New(reqID, rt.endpoint, g.now())
	rec.Tool = rt.tool
	rec.ClientRequestID = clientRequestID(r)
	if validSessionID.MatchString(pathID) {
		rec.SessionID = pathID // an id of another shape is refused later, and never recorded
	}
	defer g.finish(rec)

	c, err := g.admit(r, reqID, pathID, rt, rec)
	if err == nil {
		var out any
		if out, err = g.runTool(r.Context(), rt, c); err == nil {
			rec.Status = http.StatusOK
			if rec.Result == "" {
				rec.Result = "ok"
			}
			writeOK(w, out)
			return
		}
	}
	pe := protocol.AsError(err)
	if pe.Code == protocol.CodeInternal {
		g.deps.Logger.Error("internal error", zapRequestID(reqID), zapError(err))
	}
	rec.Fail(pe)
	writeError(w, reqID, pe)
}

// finish writes the audit record and tells the observer.
func (g *Gateway) finish(rec *audit.Record) {
	g.deps.Audit.Write(rec)
	if g.deps.Observer != nil {
		g.deps.Observer.Observe(rec)
	}
}

// admit performs every check before the tool runs and returns the call.
func (g *Gateway) admit(r *http.Request, reqID, pathID string, rt route, rec *audit.Record) (*call, error) {
	if r.Method != http.MethodPost {
		return nil, protocol.NewError(protocol.CodeMethodNotAllowed, rt.endpoint+" accepts POST only")
	}
	body, err := protocol.ReadBody(r.Body, g.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	p, err := g.authenticate(r, rt)
	if err != nil {
		return nil, err
	}
	rec.CallerType, rec.CallerID, rec.Credential, rec.KeyID = p.Type, p.ID, p.Credential, p.KeyID
	req, err := rt.decode(body)
	if err != nil {
		return nil, err
	}
	if err := checkRequest(req, p, rec); err != nil {
		return nil, err
	}
	c := &call{reqID: reqID, pathID: pathID, principal: p, req: req, rec: rec}
	if rt.bind != nil {
		if err := rt.bind(r.Context(), r, c); err != nil {
			return nil, err
		}
	}
	if err := g.decide(r.Context(), rt, c); err != nil {
		return nil, err
	}
	return c, nil
}

func (g *Gateway) authenticate(r *http.Request, rt route) (identity.Principal, error) {
	if rt.answer {
		return g.deps.Auth.AuthenticateAnswer(r)
	}
	return g.deps.Auth.AuthenticateAgent(r)
}

// checkRequest validates the decoded body and binds it to the authenticated
// caller: a body caller naming someone else is refused.
func checkRequest(req request, p identity.Principal, rec *audit.Record) error {
	std := req.standard()
	rec.SetQuestion(std.Question)
	if std.Caller != nil {
		rec.Purpose = std.Caller.Purpose
		if (std.Caller.Type != "" && std.Caller.Type != p.Type) || (std.Caller.ID != "" && std.Caller.ID != p.ID) {
			return protocol.NewError(protocol.CodeUnauthorized, "caller does not match the authenticated identity")
		}
	}
	if err := req.validate(); err != nil {
		return err
	}
	rec.RequestedScope = std.Scope
	return nil
}

// decide asks the policy. Any engine failure denies (fail closed).
func (g *Gateway) decide(ctx context.Context, rt route, c *call) error {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.DecisionTimeout)
	defer cancel()
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
		g.deps.Logger.Error("policy decision failed; denying", zapRequestID(c.reqID), zapError(err))
		c.rec.Decision = &audit.Decision{Allow: false, Code: string(protocol.CodePolicyUnavailable), Revision: g.deps.Policy.Revision()}
		return protocol.NewError(protocol.CodePolicyUnavailable, "the policy could not decide this call; it is denied")
	}
	c.rec.Decision = &audit.Decision{Allow: d.Allow, Code: string(d.Code), Reason: d.Reason, Revision: d.Revision}
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

func denyMessage(d policies.Decision) string {
	if d.Reason != "" {
		return d.Reason
	}
	return "denied by policy"
}

func callerInput(p identity.Principal) policies.Caller {
	return policies.Caller{Type: p.Type, ID: p.ID, Anonymous: p.Anonymous, Roles: p.Roles, Credential: p.Credential}
}

// runTool runs the route's handler under the backend deadline. The backend
// clients send the call's request id as X-Request-Id, so backend logs can
// be matched with the audit record.
func (g *Gateway) runTool(ctx context.Context, rt route, c *call) (any, error) {
	ctx, cancel := context.WithTimeout(backend.WithRequestID(ctx, c.reqID), g.cfg.BackendTimeout)
	defer cancel()
	return rt.run(ctx, c)
}
