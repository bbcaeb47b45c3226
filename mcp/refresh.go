package mcp

import (
	"context"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wikigate/wikigate/protocol"
)

// Refresh re-checks every open session after the gate changed underneath it
// (policy reload, API key file reload): a session whose credential would now
// be refused is closed, and one whose tools changed is sent
// notifications/tools/list_changed (docs/agents.md, "MCP"). Stateless
// (2026-07-28) clients are told through their subscriptions/listen streams;
// the SDK keeps no per-caller record of those, so they all hear it and
// re-list. It returns how many sessions were notified and closed.
func (h *Handler) Refresh(ctx context.Context) (notified, closed int) {
	for _, s := range h.sessions.all() {
		switch h.refreshSession(ctx, s) {
		case refreshNotified:
			notified++
		case refreshClosed:
			closed++
		}
	}
	h.announce(h.shared)
	return notified, closed
}

type refreshOutcome int

const (
	refreshUnchanged refreshOutcome = iota
	refreshNotified
	refreshClosed
)

func (h *Handler) refreshSession(ctx context.Context, s *session) refreshOutcome {
	c, ss := s.snapshot()
	if ss == nil {
		return refreshUnchanged // still initializing
	}
	if c.Recheck != nil && c.Recheck(ctx) != nil {
		return h.closeSession(s, "credential refused")
	}
	g, err := h.gate.Tools(ctx, c.Principal)
	if err != nil {
		if protocol.AsError(err).Code == protocol.CodeUnauthorized {
			return h.closeSession(s, "credential refused")
		}
		return refreshUnchanged // policy unavailable: keep what the client has
	}
	names, _ := granted(g.Tools)
	if !s.setListed(names) {
		return refreshUnchanged
	}
	h.announce(s.server)
	return refreshNotified
}

// baseline records the tools a session just opened may call, as if it had
// listed them, unless it listed them already. Without it a session that
// never sent tools/list had no list to compare with, and the first
// policy reload (even a whitespace-only one) sent it tools/list_changed.
// If the policy cannot answer, the session keeps no list and hears the
// next reload: a spurious notification is better than a missed one.
func (h *Handler) baseline(ctx context.Context, s *session) {
	c, ss := s.snapshot()
	if ss == nil {
		return // the SDK did not keep the session
	}
	g, err := h.gate.Tools(ctx, c.Principal)
	if err != nil {
		return
	}
	names, _ := granted(g.Tools)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed == nil {
		s.listed = names
	}
}

func (h *Handler) closeSession(s *session, reason string) refreshOutcome {
	c, ss := s.snapshot()
	h.sessions.remove(s) // first, so the closing session's own goroutine does not report it again
	_ = ss.Close()
	h.event(SessionEvent{Kind: EventSessionClosed, Caller: c.Principal, SessionID: s.id, Reason: reason})
	return refreshClosed
}

// announce makes srv send notifications/tools/list_changed to its sessions.
// The SDK sends it when a tool is added or replaced (and debounces bursts);
// it has no call to send it alone, so the first tool is registered again
// unchanged. Because each 2025-* session has its own Server, only that
// session hears it.
func (h *Handler) announce(srv *mcpsdk.Server) {
	srv.AddTool(toolObjects[0], h.toolHandler(toolDefs[0].name))
}
