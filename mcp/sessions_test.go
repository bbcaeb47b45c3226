package mcp

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// One caller cannot open more than MaxSessionsPerCaller sessions; others
// are not affected, and a closed session frees its slot.
func TestMaxSessionsPerCaller(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{MaxSessionsPerCaller: 2})
	first := connect(t, srv, "agent:coder", "2025-06-18", nil)
	connect(t, srv, "agent:coder", "2025-06-18", nil)
	if _, err := dial(srv, "agent:coder", "2025-06-18", nil); err == nil {
		t.Fatal("third session accepted")
	}
	connect(t, srv, "agent:ops", "2025-06-18", nil)
	if err := first.Close(); err != nil { // DELETE
		t.Fatal(err)
	}
	waitFor(t, func() bool { return h.Sessions() == 2 })
	connect(t, srv, "agent:coder", "2025-06-18", nil)
}

// A session dies with its credential: the request after expiry finds no
// session and must initialize again.
func TestSessionDiesWithCredential(t *testing.T) {
	g := newFakeGate()
	g.expires = time.Now().Add(300 * time.Millisecond)
	h, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "2025-06-18", nil)
	id := cs.ID()
	waitFor(t, func() bool { return h.Sessions() == 0 })
	g.expires = time.Now().Add(time.Hour) // a fresh token for the same agent
	resp, _ := post(t, srv, "POST", map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}, listBody)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("expired session: %d", resp.StatusCode)
	}
}

// Idle sessions are closed by the SDK's timeout and leave the table.
func TestIdleSessionClosed(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{SessionIdleTimeout: 200 * time.Millisecond})
	connect(t, srv, "agent:coder", "2025-11-25", nil)
	if h.Sessions() != 1 {
		t.Fatalf("sessions %d", h.Sessions())
	}
	waitFor(t, func() bool { return h.Sessions() == 0 })
}

// revocable is a fake gate whose credentials can be revoked after the fact.
type revocable struct {
	*fakeGate
	revoked atomic.Bool
}

func (r *revocable) Authenticate(req *http.Request) (Caller, error) {
	c, err := r.fakeGate.Authenticate(req)
	c.Recheck = func(context.Context) error {
		if r.revoked.Load() {
			return protocol.NewError(protocol.CodeUnauthorized, "api key revoked")
		}
		return nil
	}
	return c, err
}

// After a policy reload, a session whose tools changed is told to re-list;
// another caller's session is not; a revoked credential's session closes.
func TestRefresh(t *testing.T) {
	g := &revocable{fakeGate: newFakeGate()}
	h, err := New(Config{Enabled: true}, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	var coderHeard, opsHeard atomic.Int64
	listen := func(n *atomic.Int64) *mcpsdk.ClientOptions {
		return &mcpsdk.ClientOptions{ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { n.Add(1) }}
	}
	coder := connect(t, srv, "agent:coder", "2025-11-25", listen(&coderHeard))
	ops := connect(t, srv, "agent:ops", "2025-11-25", listen(&opsHeard))
	toolNames(t, coder)
	toolNames(t, ops)

	g.setGrants("coder", "search")
	if notified, closed := h.Refresh(ctxT(t)); notified != 1 || closed != 0 {
		t.Fatalf("refresh: notified %d closed %d", notified, closed)
	}
	waitFor(t, func() bool { return coderHeard.Load() == 1 })
	if names := toolNames(t, coder); len(names) != 1 || names[0] != "search" {
		t.Errorf("after reload: %v", names)
	}
	time.Sleep(50 * time.Millisecond)
	if opsHeard.Load() != 0 {
		t.Errorf("ops heard a change that was not its own")
	}

	g.revoked.Store(true)
	if _, closed := h.Refresh(ctxT(t)); closed != 2 {
		t.Errorf("revoked: closed %d", closed)
	}
	if h.Sessions() != 0 {
		t.Errorf("sessions left: %d", h.Sessions())
	}
}
