package mcp

import "github.com/wikigate/wikigate/identity"

// Session events the gate audits (docs/security.md, "Audit"): tool calls are
// audited by Gate.Call itself, but opening a session and refusing one happen
// here.
const (
	EventSessionOpened  = "mcp_session_opened"
	EventSessionRefused = "mcp_session_refused"
	EventSessionClosed  = "mcp_session_closed"
)

// SessionEvent is one session lifecycle fact.
type SessionEvent struct {
	Kind      string
	Caller    identity.Principal
	SessionID string // never a refused request's guess when the session is unknown
	Revision  string
	Reason    string
	// Busy marks a refusal because every session of the caller had a
	// request in flight (429 rate_limited), not a session reached for by
	// another identity or credential (403 session_forbidden).
	Busy bool
}

func (h *Handler) event(ev SessionEvent) { h.gate.SessionEvent(ev) }
