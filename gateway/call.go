package gateway

import (
	"context"
	"errors"
	"net/http"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/backend"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/sessions"
	"github.com/wikigate/wikigate/telemetry"
	"go.uber.org/zap"
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
	// progress, when set, hears the stages of a long call (MCP progress
	// notifications, or a streamed answer's status events).
	progress func(stage string)
	live     *liveAnswer // a streamed answer; nil otherwise
	// tokenCharges are the token budgets to charge with what the call
	// generates (checkTokens).
	tokenCharges []tokenCharge
}

// report tells the caller, when it asked to hear, which stage the call is in.
func (c *call) report(stage string) {
	if c.progress != nil {
		c.progress(stage)
	}
}

// serveCall runs the checks in the protocol's order (docs/protocol.md, "Order
// of checks"): method, credential (token and identity), the policy's tool
// gate, then the body (size, schema), the policy's decision (scope, dataset,
// write), then the tool. The first failure answers; a denied call never
// reaches a backend. Exactly one audit record is written, whatever happens.
func (g *Gateway) serveCall(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route) {
	rec := g.newRecord(r, reqID, pathID, rt)
	r, span := g.traceCall(r, rec, rt)
	defer g.finishTraced(r.Context(), span, rec)

	out, err := g.httpCall(r, reqID, pathID, rt, rec)
	pe, closed := g.settle(r.Context(), rec, err)
	if !closed {
		writeOutcomeAs(w, r, reqID, rt.errorBody, out, err, pe)
	}
}

// writeOutcome answers a settled call in JSON: its result, or its error.
func writeOutcome(w http.ResponseWriter, r *http.Request, reqID string, out protocol.Result, err error, pe *protocol.Error) {
	writeOutcomeAs(w, r, reqID, nil, out, err, pe)
}

// writeOutcomeAs is writeOutcome with a route set's error body (nil: the
// protocol's envelope).
func writeOutcomeAs(w http.ResponseWriter, r *http.Request, reqID string, errorBody func(error, *protocol.Error) any, out protocol.Result, err error, pe *protocol.Error) {
	if pe == nil {
		writeOK(w, out)
		return
	}
	if errors.As(err, new(refusedBeforeBody)) && r.ContentLength != 0 {
		// Close rather than let net/http read the unread body first to
		// reuse the connection: a slow body would hold the answer back.
		w.Header().Set("Connection", "close")
	}
	if errorBody != nil {
		writeErrorBody(w, pe, errorBody(err, pe))
		return
	}
	writeError(w, reqID, pe)
}

// httpCall is the HTTP door: method and credential, then the pipeline
// shared with MCP, reading the body only once the tool gate allowed.
func (g *Gateway) httpCall(r *http.Request, reqID, pathID string, rt route, rec *audit.Record) (protocol.Result, error) {
	if r.Method != http.MethodPost {
		return nil, refusedBeforeBody{protocol.NewError(protocol.CodeMethodNotAllowed, rt.endpoint+" accepts POST only")}
	}
	_, span := telemetry.Stage(r.Context(), telemetry.StageAuthenticate)
	p, err := g.authenticate(r, rt)
	telemetry.EndAuth(span, p.Type, p.Credential, err)
	if err != nil {
		noteRefusedKey(rec, err)
		return nil, refusedBeforeBody{err}
	}
	in := callIn{reqID: reqID, pathID: pathID, rt: rt, rec: rec, r: r}
	return g.execute(r.Context(), in, p, func() ([]byte, error) {
		if protocol.Compressed(r.Header.Get("Content-Encoding")) {
			return nil, protocol.ErrCompressedBody
		}
		return protocol.ReadBody(r.Body, g.cfg.MaxBodyBytes)
	})
}

// callIn is what the pipeline needs besides the caller and the body.
type callIn struct {
	reqID, pathID string
	rt            route
	rec           *audit.Record
	r             *http.Request // the carrying request; its body belongs to body()
	progress      func(stage string)
	admitted      func() // MCP: told when the call passed the decision and limits (mcp.CallMeta.Admitted)
}

// execute is the pipeline both doors share once the caller is known: the
// policy's tool gate, then the body (read only now), strict decode,
// validation, binding, the decision and its guard, then the tool. Both the
// HTTP routes and MCP's tools/call run exactly this, so they cannot drift.
func (g *Gateway) execute(ctx context.Context, in callIn, p identity.Principal, body func() ([]byte, error)) (protocol.Result, error) {
	recordCaller(in.rec, p)
	if err := g.gateTool(ctx, in.rt, p, in.rec); err != nil {
		return nil, refusedBeforeBody{err}
	}
	raw, err := body()
	if err != nil {
		return nil, err
	}
	c, err := g.admit(ctx, in, p, raw)
	if err != nil {
		return nil, err
	}
	if in.admitted != nil {
		in.admitted()
	}
	return g.runTool(ctx, in.rt, c)
}

// settle records how a call ended and returns the error to answer with:
// nil for a success (status 200, result ok unless the tool named one), and
// closed when the caller hung up (nothing is to be written back).
func (g *Gateway) settle(ctx context.Context, rec *audit.Record, err error) (pe *protocol.Error, closed bool) {
	if err == nil {
		rec.Status = http.StatusOK
		if rec.Result == "" {
			rec.Result = "ok"
		}
		return nil, false
	}
	if backend.ClientClosed(ctx) {
		g.clientClosed(rec, err)
		return nil, true
	}
	pe = protocol.AsError(err)
	if pe.Code == protocol.CodeInternal {
		g.deps.Logger.Error("internal error", zapRequestID(rec.RequestID), zapError(err))
	}
	rec.Fail(pe)
	return pe, false
}

// clientClosed records a call whose caller hung up before it was answered:
// whatever failed after that (a backend call, the policy, a store) failed
// because the call was cut short, not because anything is wrong, so it is
// neither an error code nor an error-level log, nor an error field: that
// failure (err) is the hang-up's effect, and logged it read as a backend
// outage (error: ragflow_unavailable). Nothing is written back: nobody is
// there to read it.
func (g *Gateway) clientClosed(rec *audit.Record, _ error) {
	rec.ClientClosed()
	g.deps.Logger.Info("caller closed the connection before the call was answered",
		zapRequestID(rec.RequestID), zap.String("endpoint", rec.Endpoint))
}

// finish writes the audit record and tells the observer. A record its
// writers refused is reported on ctx's audit.Landing, so an answer held
// for the sync mode goes out as 503 audit_unavailable, not as if the call
// had been recorded.
func (g *Gateway) finish(ctx context.Context, rec *audit.Record) {
	audit.ReportLanding(ctx, g.deps.Audit.Write(rec))
	if g.deps.Observer != nil {
		g.deps.Observer.Observe(rec)
	}
}

// admit checks the body and decides the call. The credential and the tool
// gate came before the body (execute): a caller without a valid
// credential, or without the tool, is answered without a byte of its body
// read (so it holds no buffer, gets no 100 Continue, and learns nothing
// about the tool's body schema). Anonymous callers of the public answer
// routes are let in by the credential check and the tool gate, and their
// body is read under the same size cap.
func (g *Gateway) admit(ctx context.Context, in callIn, p identity.Principal, body []byte) (*call, error) {
	req, err := in.rt.decode(body)
	if err != nil {
		return nil, err
	}
	if err := checkRequest(req, p, in.rec); err != nil {
		return nil, err
	}
	resolvePage(g.cfg.Site, req.standard().Page, in.rec)
	c := &call{reqID: in.reqID, pathID: in.pathID, principal: p, req: req, rec: in.rec, progress: in.progress}
	if in.rt.bind != nil {
		if err := in.rt.bind(ctx, in.r, c); err != nil {
			return nil, err
		}
	}
	if err := g.decide(ctx, in.rt, c); err != nil {
		return nil, err
	}
	// Limits come after the decision (they are the policy's) and before
	// the tool, so a limited call uses up no session or idempotency key.
	if err := g.enforceLimits(ctx, in.r, c); err != nil {
		return nil, err
	}
	return c, nil
}

// refusedBeforeBody marks a refusal made before the body was read.
type refusedBeforeBody struct{ error }

func (e refusedBeforeBody) Unwrap() error { return e.error }

// noteRefusedKey names, in the audit record of a call refused for a
// revoked or expired API key, the key's public prefix and its agent: the
// caller held the real key, and the security team needs to see who still
// uses a key it revoked. Never the key itself.
func noteRefusedKey(rec *audit.Record, err error) {
	var kr *identity.KeyRefused
	if errors.As(err, &kr) {
		rec.CallerType, rec.CallerID, rec.Credential, rec.KeyID = identity.TypeAgent, kr.Agent, identity.CredentialAPIKey, kr.KeyID
	}
}

func (g *Gateway) authenticate(r *http.Request, rt route) (identity.Principal, error) {
	if rt.answer {
		return g.deps.Auth.AuthenticateAnswer(r)
	}
	return g.deps.Auth.AuthenticateAgent(r)
}

// checkRequest validates the decoded body, then binds it to the
// authenticated caller: a malformed body (an unknown caller.type included)
// is invalid_request, a well-formed caller naming someone else is refused.
func checkRequest(req request, p identity.Principal, rec *audit.Record) error {
	std := req.standard()
	rec.SetQuestion(std.Question)
	if std.Caller != nil {
		rec.Purpose = std.Caller.Purpose
	}
	if err := req.validate(); err != nil {
		return err
	}
	if c := std.Caller; c != nil && ((c.Type != "" && c.Type != p.Type) || (c.ID != "" && c.ID != p.ID)) {
		return protocol.NewError(protocol.CodeUnauthorized, "caller does not match the authenticated identity")
	}
	rec.RequestedScope = std.Scope
	return nil
}

// runTool runs the route's handler under the backend deadline. The backend
// clients send the call's request id as X-Request-Id, so backend logs can
// be matched with the audit record.
func (g *Gateway) runTool(ctx context.Context, rt route, c *call) (protocol.Result, error) {
	ctx, cancel := context.WithTimeout(backend.WithRequestID(ctx, c.reqID), g.cfg.BackendTimeout)
	defer cancel()
	return rt.run(ctx, c)
}
