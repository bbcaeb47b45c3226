package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
)

// At the per-caller cap a new session closes the caller's least recently
// used idle one instead of being refused: a client that never sends DELETE
// (most do not) is never locked out. The evicted session answers 404 (the
// client initializes again), the close is audited, the others keep
// working, and another caller is not affected.
func TestSessionCapEvictsTheLeastRecentlyUsed(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{MaxSessionsPerCaller: 2})
	coder := map[string]string{"Authorization": "Bearer agent:coder"}
	ops := openRaw(t, srv, map[string]string{"Authorization": "Bearer agent:ops"})
	first, second := openRaw(t, srv, coder), openRaw(t, srv, coder)
	if status := listOn(t, srv, coder, first); status != http.StatusOK { // first is now the more recently used
		t.Fatalf("first session: %d", status)
	}
	third := openRaw(t, srv, coder)
	if status := listOn(t, srv, coder, second); status != http.StatusNotFound {
		t.Errorf("the least recently used session after the cap: %d, want 404", status)
	}
	for name, id := range map[string]string{"first": first, "third": third} {
		if status := listOn(t, srv, coder, id); status != http.StatusOK {
			t.Errorf("%s session: %d", name, status)
		}
	}
	if status := listOn(t, srv, map[string]string{"Authorization": "Bearer agent:ops"}, ops); status != http.StatusOK {
		t.Errorf("another caller's session: %d", status)
	}
	if ev := g.event(EventSessionClosed, second); ev == nil || !strings.Contains(ev.Reason, "evicted") || ev.Caller.ID != "coder" {
		t.Errorf("the eviction's audit event: %+v", ev)
	}
	if n := h.Sessions(); n != 3 {
		t.Errorf("open sessions %d, want 3 (two of coder's, one of ops')", n)
	}
}

// A client that initializes again and again without DELETE, far past the
// cap, gets a working session every time.
func TestInitializeWithoutDeletePastTheCap(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{MaxSessionsPerCaller: 4})
	coder := map[string]string{"Authorization": "Bearer agent:coder"}
	for i := range 40 {
		id := openRaw(t, srv, coder)
		if status := listOn(t, srv, coder, id); status != http.StatusOK {
			t.Fatalf("run %d: tools/list on its new session: %d", i, status)
		}
	}
	if n := h.Sessions(); n != 4 {
		t.Errorf("open sessions %d, want the cap (4)", n)
	}
}

// Only when every session of the caller has a request in flight is an
// initialize refused, with a Retry-After that is the real wait (a place
// frees when a call ends, not when a session idles out); once the call
// ends, the same initialize succeeds.
func TestSessionCapRefusesOnlyWhileAllAreBusy(t *testing.T) {
	g := &blockingGate{fakeGate: newFakeGate(), release: make(chan struct{}), started: make(chan struct{}, 1)}
	h, err := New(Config{Enabled: true, MaxSessionsPerCaller: 1}, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	coder := map[string]string{"Authorization": "Bearer agent:coder"}
	busy := openRaw(t, srv, coder)
	done := make(chan int, 1)
	go func() { // no t here: a failed request reports status 0
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(sessionCallBody("2", "ask", `,"arguments":{"question":"q"}`)))
		for k, v := range onSession(coder, busy) {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := srv.Client().Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case <-g.started:
	case status := <-done:
		t.Fatalf("the call on the busy session ended before the gate saw it: %d", status)
	}
	resp, body := post(t, srv, "POST", coder, initBody)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, "in flight") {
		t.Errorf("initialize while the only session is busy: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if ev := g.event(EventSessionRefused, ""); ev == nil || !ev.Busy {
		t.Errorf("the refusal's audit event does not say every session was busy (429, not 403): %+v", ev)
	}
	close(g.release)
	if status := <-done; status != http.StatusOK {
		t.Errorf("the busy session's call: %d", status)
	}
	openRaw(t, srv, coder)
	if status := listOn(t, srv, coder, busy); status != http.StatusNotFound {
		t.Errorf("the session evicted once idle: %d", status)
	}
}

// Anonymous readers are counted per client address, and the address is
// Config.ClientIP's when set (behind Caddy: the client IP its
// trusted_proxies allow): two readers behind one proxy keep their sessions.
func TestAnonymousSessionsCountedPerClientIP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		clientIP  func(*http.Request) string
		firstKept bool
	}{
		{"the connection's address", nil, false},
		{"the client IP", func(r *http.Request) string { return r.Header.Get("X-Test-Client") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newFakeGate()
			g.publicRead = true
			_, srv := server(t, g, Config{MaxSessionsPerCaller: 1, ClientIP: tc.clientIP})
			a, b := map[string]string{"X-Test-Client": "192.0.2.1"}, map[string]string{"X-Test-Client": "192.0.2.2"}
			first := openRaw(t, srv, a)
			openRaw(t, srv, b)
			if kept := listOn(t, srv, a, first) == http.StatusOK; kept != tc.firstKept {
				t.Errorf("the first reader's session kept: %v, want %v", kept, tc.firstKept)
			}
		})
	}
}

// openRaw initializes a 2025-11-25 session with raw requests and returns
// its id.
func openRaw(t *testing.T, srv *httptest.Server, hdr map[string]string) string {
	t.Helper()
	resp, body := post(t, srv, "POST", hdr, initBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, srv, "POST", onSession(hdr, id), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return id
}

// onSession is hdr with the session's headers.
func onSession(hdr map[string]string, id string) map[string]string {
	out := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

// listOn sends tools/list on session id and returns the HTTP status.
func listOn(t *testing.T, srv *httptest.Server, hdr map[string]string, id string) int {
	t.Helper()
	resp, _ := post(t, srv, "POST", onSession(hdr, id), listBody)
	return resp.StatusCode
}

// event is the last session event of kind about session id, nil if none.
func (g *fakeGate) event(kind, id string) *SessionEvent {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := len(g.events) - 1; i >= 0; i-- {
		if ev := g.events[i]; ev.Kind == kind && ev.SessionID == id {
			return &ev
		}
	}
	return nil
}

// blockingGate holds every ask until release is closed.
type blockingGate struct {
	*fakeGate
	release chan struct{}
	started chan struct{}
}

func (g *blockingGate) Call(ctx context.Context, p identity.Principal, tool string, args json.RawMessage, meta CallMeta) (protocol.Result, error) {
	if tool == "ask" {
		g.started <- struct{}{}
		<-g.release
	}
	return g.fakeGate.Call(ctx, p, tool, args, meta)
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

// keyedGate adds API keys to the fake gate: X-Agent-Api-Key "<agent>.<key
// id>" authenticates the agent with that key until the key is revoked.
type keyedGate struct {
	*fakeGate
	revoked sync.Map // key id → true
}

func (g *keyedGate) Authenticate(r *http.Request) (Caller, error) {
	key := r.Header.Get("X-Agent-Api-Key")
	if key == "" {
		return g.fakeGate.Authenticate(r)
	}
	agent, id, _ := strings.Cut(key, ".")
	recheck := func(context.Context) error {
		if _, gone := g.revoked.Load(id); gone {
			return protocol.NewError(protocol.CodeUnauthorized, "api key revoked")
		}
		return nil
	}
	if err := recheck(r.Context()); err != nil {
		return Caller{}, err
	}
	p := identity.Principal{Type: identity.TypeAgent, ID: agent, Credential: identity.CredentialAPIKey, KeyID: id}
	return Caller{Principal: p, Recheck: recheck}, nil
}

// A session is bound to the credential that opened it, not only to the
// identity: the same agent's other credential is refused on it (403), and
// once the opening API key is revoked the session ends at the next request
// whatever it carries, the agent's JWT included (404, audited), without
// waiting for a key-file re-check (Refresh).
func TestSessionBoundToItsCredential(t *testing.T) {
	g := &keyedGate{fakeGate: newFakeGate()}
	h, err := New(Config{Enabled: true}, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, h)
	jwt, key1, key2 := map[string]string{"Authorization": "Bearer agent:coder"},
		map[string]string{"X-Agent-Api-Key": "coder.k1"}, map[string]string{"X-Agent-Api-Key": "coder.k2"}

	byJWT, byKey := openRaw(t, srv, jwt), openRaw(t, srv, key1)
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		id   string
	}{
		{"a JWT session with an API key", key1, byJWT},
		{"a key session with the agent's JWT", jwt, byKey},
		{"a key session with another key", key2, byKey},
	} {
		resp, body := post(t, srv, "POST", onSession(tc.hdr, tc.id), listBody)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "session_forbidden") {
			t.Errorf("%s: %d %s, want 403 session_forbidden", tc.name, resp.StatusCode, body)
		}
	}
	if listOn(t, srv, jwt, byJWT) != http.StatusOK || listOn(t, srv, key1, byKey) != http.StatusOK {
		t.Fatal("the sessions with their own credentials no longer work")
	}

	g.revoked.Store("k1", true)
	resp, body := post(t, srv, "POST", onSession(jwt, byKey), listBody)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "session_expired") {
		t.Errorf("the revoked key's session with the agent's JWT: %d %s, want 404 session_expired", resp.StatusCode, body)
	}
	if ev := g.event(EventSessionClosed, byKey); ev == nil || ev.Reason != "credential refused" {
		t.Errorf("the close is not audited: %+v", ev)
	}
	if status := listOn(t, srv, jwt, byKey); status != http.StatusNotFound {
		t.Errorf("the ended session, again: %d", status)
	}
	if status := listOn(t, srv, key1, byKey); status != http.StatusUnauthorized {
		t.Errorf("the revoked key itself: %d", status)
	}
	if status := listOn(t, srv, jwt, byJWT); status != http.StatusOK {
		t.Errorf("the JWT's own session after another key's revocation: %d", status)
	}
}

// A session whose client listens on its GET stream is evicted after every
// session nobody listens to, even a more recently used one: a client that
// is gone holds no stream, a running one usually does.
func TestListeningSessionIsEvictedLast(t *testing.T) {
	g := newFakeGate()
	h, srv := server(t, g, Config{MaxSessionsPerCaller: 2})
	listen := &mcpsdk.ClientOptions{ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) {}}
	listening := connect(t, srv, "agent:coder", "2025-11-25", listen)
	waitFor(t, func() bool {
		s := h.sessions.get(listening.ID())
		if s == nil {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.listening > 0
	})
	coder := map[string]string{"Authorization": "Bearer agent:coder"}
	recent := openRaw(t, srv, coder)
	listOn(t, srv, coder, recent)
	openRaw(t, srv, coder)
	if status := listOn(t, srv, coder, recent); status != http.StatusNotFound {
		t.Errorf("the more recently used session nobody listens to: %d, want 404 (evicted)", status)
	}
	if _, err := listening.ListTools(ctxT(t), nil); err != nil {
		t.Errorf("the listening session was evicted: %v", err)
	}
}
