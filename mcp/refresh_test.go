package mcp

import (
	"context"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session that never sent tools/list is told to re-list only when the
// tools it could call changed: a reload that changes nothing (a
// whitespace-only edit of the policy) notifies nobody, and one that
// changes another caller's grant does not reach it.
func TestRefreshNotifiesOnlyChangedSessions(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{})
	var coderHeard atomic.Int64
	opts := &mcpsdk.ClientOptions{ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { coderHeard.Add(1) }}
	connect(t, srv, "agent:coder", "2025-11-25", opts) // never lists
	connect(t, srv, "agent:ops", "2025-06-18", nil)    // never lists
	waitFor(t, func() bool { return baselined(h) == 2 })

	if notified, closed := h.Refresh(ctxT(t)); notified != 0 || closed != 0 {
		t.Fatalf("unchanged reload: notified %d, closed %d; want 0 and 0", notified, closed)
	}
	g.setGrants("ops", "search")
	if notified, _ := h.Refresh(ctxT(t)); notified != 1 {
		t.Fatalf("ops's grant changed: notified %d sessions, want 1 (ops only)", notified)
	}
	g.setGrants("coder", "search")
	if notified, _ := h.Refresh(ctxT(t)); notified != 1 {
		t.Fatalf("coder's grant changed: notified %d sessions, want 1", notified)
	}
	waitFor(t, func() bool { return coderHeard.Load() == 1 })
	if notified, _ := h.Refresh(ctxT(t)); notified != 0 {
		t.Errorf("second unchanged reload: notified %d, want 0", notified)
	}
}

// baselined counts the sessions whose tools are recorded (baseline runs
// once the initialize has been answered, so it may trail the client).
func baselined(h *Handler) int {
	n := 0
	for _, s := range h.sessions.all() {
		s.mu.Lock()
		if s.listed != nil {
			n++
		}
		s.mu.Unlock()
	}
	return n
}
