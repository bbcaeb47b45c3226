package gateway

import (
	"net/http"
	"time"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/sessions"
)

// sessionHistoryPattern is the route that reads a session back
// (docs/protocol.md, "Reading a session back"): a widget restores a
// conversation after a page reload.
const sessionHistoryPattern = "/answer/sessions/{sessionId}"

// sessionHistory is the body of GET /answer/sessions/{id}.
type sessionHistory struct {
	SessionID       string              `json:"sessionId"`
	Scope           protocol.Scope      `json:"scope"`
	Limits          sessionLimits       `json:"limits"`
	CreatedAt       time.Time           `json:"createdAt"`
	ExpiresAt       time.Time           `json:"expiresAt"`
	TrimmedTurns    int                 `json:"trimmedTurns"`
	CitationSummary []protocol.Citation `json:"citationSummary"`
	Turns           []historyTurn       `json:"turns"`
	Audit           protocol.Audit      `json:"audit"`
}

// historyTurn is one kept turn. The question is in clear only when the
// operator lets the audit log keep questions (log_questions); otherwise
// its SHA-256, as the audit record has it, so a stolen session token reads
// no more of what was asked than the audit log does.
type historyTurn struct {
	Question       string                   `json:"question,omitempty"`
	QuestionSHA256 string                   `json:"questionSha256,omitempty"`
	Answer         string                   `json:"answer"`
	Citations      []protocol.Citation      `json:"citations"`
	NoAnswerReason *protocol.NoAnswerReason `json:"noAnswerReason"`
	// Actions are the turn's actions as its answer offered them, so a
	// restored conversation can still rate or report it.
	Actions []protocol.Action `json:"actions"`
	At      time.Time         `json:"at"`
}

// serveSessionHistory answers GET /answer/sessions/{id}: the credential,
// the tool gate (ask), the session's token and owner as for a turn, and the
// policy's decision as for a turn without a scope of its own; then the
// stored session, read from the store and never from a backend. Anyone but
// the owner holding the token is 403 session_forbidden.
func (g *Gateway) serveSessionHistory(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route) {
	rec := g.newRecord(r, reqID, pathID, rt)
	r, span := g.traceCall(r, rec, rt) // gateway/trace.go
	defer g.finishTraced(r.Context(), span, rec)
	out, err := g.sessionHistoryCall(r, reqID, pathID, rt, rec)
	pe, closed := g.settle(r.Context(), rec, err)
	if !closed {
		writeOutcome(w, r, reqID, out, err, pe)
	}
}

func (g *Gateway) sessionHistoryCall(r *http.Request, reqID, pathID string, rt route, rec *audit.Record) (protocol.Result, error) {
	if r.Method != http.MethodGet {
		return nil, refusedBeforeBody{getOnly(rt)}
	}
	p, err := g.authenticate(r, rt)
	if err != nil {
		noteRefusedKey(rec, err)
		return nil, refusedBeforeBody{err}
	}
	rec.CallerType, rec.CallerID, rec.Credential, rec.KeyID = p.Type, p.ID, p.Credential, p.KeyID
	ctx := r.Context()
	if err := g.gateTool(ctx, rt, p, rec); err != nil {
		return nil, refusedBeforeBody{err}
	}
	c := &call{reqID: reqID, pathID: pathID, principal: p, req: &askRequest{}, rec: rec}
	if err := g.bindSession(ctx, r, c); err != nil {
		return nil, err
	}
	rec.SessionID = c.session.ID
	if err := g.decide(ctx, rt, c); err != nil {
		return nil, err
	}
	return protocol.JSON(g.historyOf(c)), nil
}

// historyOf is the session of c as its owner reads it back.
func (g *Gateway) historyOf(c *call) sessionHistory {
	s := c.session
	out := sessionHistory{
		SessionID: s.ID, Scope: s.Scope,
		Limits:    sessionLimits{MaxTurns: s.Limits.MaxTurns, MaxContextTokens: s.Limits.MaxContextTokens},
		CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, TrimmedTurns: s.TrimmedTurns,
		CitationSummary: nonNil(s.CitationSummary), Turns: []historyTurn{}, Audit: c.audit(),
	}
	opts := normalizer.AnswerOptions{WriteTools: g.servedWriteTools(c.decision.WriteTools), FeedbackEndpoint: g.feedbackEndpointFor(c.rec.Endpoint)}
	for _, t := range s.Turns {
		h := g.historyTurnOf(t)
		h.Actions = turnActions(t, c.decision.Scope, opts)
		out.Turns = append(out.Turns, h)
	}
	return out
}

func (g *Gateway) historyTurnOf(t sessions.Turn) historyTurn {
	h := historyTurn{Answer: t.Answer, Citations: nonNil(t.Citations), At: t.At}
	if g.deps.Audit.LogsQuestions() {
		h.Question = t.Question
	} else {
		h.QuestionSHA256 = audit.HashQuestion(t.Question)
	}
	if t.NoAnswer {
		h.NoAnswerReason = normalizer.NoAnswerReasonOf(t.NoAnswerReason)
	}
	return h
}
