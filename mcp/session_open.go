package mcp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/quota"
)

// open reserves a session for an initialize from c. At the caller's cap
// the least recently used idle session is closed to make room (audited;
// its client gets 404 on it and initializes again, as the MCP transport
// spec has clients do); the initialize is refused only when every session
// of the caller has a request in flight.
func (h *Handler) open(c Caller, r *http.Request) (*session, *refusal) {
	s := h.newSession(c, r)
	evicted, ok := h.sessions.reserve(s)
	if !ok {
		h.event(SessionEvent{Kind: EventSessionRefused, Caller: c.Principal, Reason: "too many sessions, all busy", Busy: true})
		ref := refuse(http.StatusTooManyRequests, codeInvalidRequest, fmt.Sprintf(
			"all %d of this caller's MCP sessions have a request in flight: retry when one ends", h.cfg.MaxSessionsPerCaller))
		ref.header = sessionsFull(h.cfg.MaxSessionsPerCaller)
		return nil, ref
	}
	if evicted != nil {
		h.evict(evicted)
	}
	return s, nil
}

// evict closes a session reserve took out of the table. Its SDK session
// ends with it (a GET stream on it ends), and its next request is 404.
func (h *Handler) evict(s *session) {
	c, ss := s.snapshot()
	if ss != nil {
		_ = ss.Close()
	}
	reason := fmt.Sprintf("evicted: the caller's least recently used idle session, to open a new one at the cap of %d", h.cfg.MaxSessionsPerCaller)
	h.log.Info("mcp session closed", "mcp_session_id", s.id, "reason", reason)
	h.event(SessionEvent{Kind: EventSessionClosed, Caller: c.Principal, SessionID: s.id, Reason: reason})
}

// mcpSessionsPolicy names the per-caller session cap in its 429, which
// carries the fields every 429 of the gate does (docs/operators.md "Rate limits").
const mcpSessionsPolicy = "mcp-sessions-per-caller"

// mcpSessionRetry is the wait that 429 names. It is refused only while
// every session of the caller is serving a request, and a place frees the
// moment one of those ends (the session is idle then, and evicted for the
// next initialize): a tool call's time, not the idle timeout.
const mcpSessionRetry = time.Second

// sessionsFull is the 429's headers: a budget of sessions held at once.
func sessionsFull(size int) http.Header {
	p := quota.Policy{Name: mcpSessionsPolicy, Quota: size, Concurrent: true}
	return p.Refusal(0, mcpSessionRetry, mcpSessionRetry)
}

// bind checks that the request on session id comes from its owner, with
// the credential that opened it.
func (h *Handler) bind(id string, c Caller) (*session, *refusal) {
	s := h.sessions.get(id)
	if s == nil {
		return nil, sessionNotFound()
	}
	if s.owner != identityKey(c.Principal) {
		h.event(SessionEvent{Kind: EventSessionRefused, Caller: c.Principal, SessionID: id, Reason: "another identity"})
		return nil, refuse(http.StatusForbidden, codeForbidden, "this session belongs to another identity")
	}
	if s.cred != credentialKey(c.Principal) {
		return nil, h.otherCredential(s, c)
	}
	s.renew(c)
	return s, nil
}

func sessionNotFound() *refusal {
	return refuse(http.StatusNotFound, codeInvalidRequest, "session not found: initialize a new one")
}

// otherCredential refuses a request on s carrying another credential of
// its owner than the one that opened it. When the session's own
// credential is no longer accepted (its API key was revoked, its token
// expired) the session ends here, whatever the client sent instead, and
// the client is told to initialize again: a revoked key's session does not
// live on under the same agent's JWT until the next key-file check.
func (h *Handler) otherCredential(s *session, c Caller) *refusal {
	opened, ss := s.snapshot()
	if ss != nil && !accepted(opened) {
		h.closeSession(s, "credential refused")
		return sessionNotFound()
	}
	h.event(SessionEvent{Kind: EventSessionRefused, Caller: c.Principal, SessionID: s.id, Reason: "another credential"})
	return refuse(http.StatusForbidden, codeForbidden,
		"this session was opened with another credential of this caller: send that one, or initialize a new session")
}

// accepted reports whether c's credential would still be accepted now.
func accepted(c Caller) bool {
	if exp := c.expiry(); !exp.IsZero() && !time.Now().Before(exp) {
		return false
	}
	return c.Recheck == nil || c.Recheck(context.Background()) == nil
}
