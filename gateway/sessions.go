package gateway

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/sessions"
)

// SessionTokenHeader carries the session token on turns (docs/protocol.md,
// "SessionCreated").
const SessionTokenHeader = "X-Session-Token"

type sessionCreateRequest struct{ protocol.AskRequest }

func (r *sessionCreateRequest) standard() *protocol.Standard { return &r.Standard }
func (r *sessionCreateRequest) pages() []string              { return nil }

// validate: the first question is optional when creating a session.
func (r *sessionCreateRequest) validate() error { return validateStandard(&r.Standard, false) }

// sessionCreated is the body of POST /answer/sessions. The token is
// returned here only; the store keeps its hash.
type sessionCreated struct {
	SessionID    string                 `json:"sessionId"`
	SessionToken string                 `json:"sessionToken"`
	Scope        protocol.Scope         `json:"scope"`
	Limits       sessionLimits          `json:"limits"`
	CreatedAt    time.Time              `json:"createdAt"`
	ExpiresAt    time.Time              `json:"expiresAt"`
	FirstAnswer  *protocol.AnswerResult `json:"firstAnswer,omitempty"`
	Audit        protocol.Audit         `json:"audit"`
}

type sessionLimits struct {
	MaxTurns         int `json:"maxTurns"`
	MaxContextTokens int `json:"maxContextTokens"`
}

// runSessionCreate binds a new session to its owner and to the decided
// scope, answering the first question when one is given. If that answer
// fails the session is not created, so nothing half-made is left behind.
func (g *Gateway) runSessionCreate(ctx context.Context, c *call) (protocol.Result, error) {
	owner := ownerOf(c.principal)
	if err := g.deps.Sessions.Admit(ctx, owner); err != nil {
		return nil, sessionStoreError(err)
	}
	sess, token, err := sessions.New(owner, c.decision.Scope, g.cfg.SessionLimits, g.cfg.SessionTTL, g.now())
	if err != nil {
		return nil, err
	}
	c.rec.SessionID = sess.ID
	out := sessionCreated{
		SessionID: sess.ID, SessionToken: token, Scope: sess.Scope,
		Limits:    sessionLimits{MaxTurns: sess.Limits.MaxTurns, MaxContextTokens: sess.Limits.MaxContextTokens},
		CreatedAt: sess.CreatedAt, ExpiresAt: sess.ExpiresAt,
	}
	if q := c.req.standard().Question; q != "" {
		res, err := g.answer(ctx, c, answerTurn{question: q, retrievalQuery: q, requireCitations: requireCitations(c.req.standard())})
		if err != nil {
			return nil, err
		}
		sess.AddTurn(g.turnOf(q, res))
		out.FirstAnswer = &res
	}
	if err := g.deps.Sessions.Create(ctx, sess); err != nil {
		return nil, sessionStoreError(err)
	}
	out.Audit = c.audit()
	return protocol.JSON(out), nil
}

// bindSession loads the session of a turn and checks its token and owner, then
// its expiry (docs/protocol.md, "Order of checks", step 5): a session id alone
// never authorizes, and a non-owner never learns whether the session expired.
func (g *Gateway) bindSession(ctx context.Context, r *http.Request, c *call) error {
	token, _, err := identity.SingleHeader(r, SessionTokenHeader)
	if err != nil {
		return err // repeated: refused like a repeated Authorization header
	}
	if token == "" {
		return protocol.NewError(protocol.CodeSessionForbidden, SessionTokenHeader+" is required for a session's turns and history")
	}
	sess, err := g.deps.Sessions.Get(ctx, c.pathID)
	if err == nil {
		err = sess.Authorize(token, ownerOf(c.principal), g.now())
	}
	switch {
	case err == nil:
		c.session = sess
		return nil
	case errors.Is(err, sessions.ErrExpired):
		return protocol.NewError(protocol.CodeSessionExpired, "this session has expired; create a new one")
	case errors.Is(err, sessions.ErrNotFound), errors.Is(err, sessions.ErrForbidden):
		return protocol.NewError(protocol.CodeSessionForbidden, "no such session for this caller and session token")
	default:
		return sessionStoreError(err)
	}
}

// runSessionTurn answers a follow-up with the session's history: a
// condensed query for retrieval, prior turns and the pages trimmed turns
// cited for generation. The scope is the decision's, which the policy keeps
// inside the session's scope. The result carries the session's citation
// summary as it stands after this turn, so a client can show what earlier
// turns cited.
func (g *Gateway) runSessionTurn(ctx context.Context, c *call) (protocol.Result, error) {
	q := c.req.standard().Question
	res, err := g.answer(ctx, c, answerTurn{
		question:         q,
		retrievalQuery:   c.session.CondensedQuery(q),
		history:          c.session.History(),
		requireCitations: requireCitations(c.req.standard()),
	})
	if err != nil {
		return nil, err
	}
	turn := g.turnOf(q, res)
	err = g.deps.Sessions.Update(ctx, c.pathID, func(s *sessions.Session) error {
		s.AddTurn(turn)
		res.CitationSummary = slices.Clone(s.CitationSummary)
		return nil
	})
	if err != nil {
		return nil, sessionStoreError(err)
	}
	return &res, nil
}

// sessionStoreError maps the store's refusals to protocol errors. A session
// that vanished while its turn was being answered (evicted for room, or
// past its grace) is expired for its owner, who can do nothing but start
// a new one. A shared store that does not answer is 503
// session_store_unavailable: the session is not lost, only out of reach
// for now. Anything else stays an internal error.
func sessionStoreError(err error) error {
	switch {
	case errors.Is(err, sessions.ErrUnavailable):
		return protocol.NewError(protocol.CodeSessionStoreUnavailable, "the session store is unavailable; try again shortly")
	case errors.Is(err, sessions.ErrNotFound):
		return protocol.NewError(protocol.CodeSessionExpired, "this session expired while the turn was answered; create a new one")
	case errors.Is(err, sessions.ErrAnonymousBudget):
		return anonymousSessionsRefused(err)
	default:
		return err
	}
}

// anonymousSessionsPolicy names the anonymous session budget in its 429.
const anonymousSessionsPolicy = "anonymous-sessions"

// anonymousSessionRetry is the wait the anonymous budget's 429 names: a
// place comes back when any anonymous session ends, which the store does
// not predict, so a polite minute.
const anonymousSessionRetry = time.Minute

// anonymousSessionsRefused is the 429 of a spent anonymous session budget:
// places held at once (live sessions), not calls per window.
func anonymousSessionsRefused(err error) error {
	p := quota.Policy{Name: anonymousSessionsPolicy, Concurrent: true}
	var b *sessions.BudgetError
	if errors.As(err, &b) {
		p.Quota = b.MaxSessions
	}
	return rateLimited("too many anonymous sessions right now; try again later or sign in", p, 0, anonymousSessionRetry, anonymousSessionRetry)
}

func (g *Gateway) turnOf(q string, res protocol.AnswerResult) sessions.Turn {
	t := sessions.Turn{
		Question: q, Answer: res.Answer, Citations: res.Citations,
		NoAnswer: res.NoAnswerReason != nil, At: g.now(),
		Tokens: sessions.EstimateTokens(q) + sessions.EstimateTokens(res.Answer),
	}
	if res.NoAnswerReason != nil {
		t.NoAnswerReason = res.NoAnswerReason.Reason
	}
	return t
}

func ownerOf(p identity.Principal) sessions.Owner {
	return sessions.Owner{Type: p.Type, ID: p.ID, Anonymous: p.Anonymous}
}
