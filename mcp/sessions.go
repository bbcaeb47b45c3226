package mcp

import (
	"crypto/rand"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/ratelimit"
)

// session is one MCP session of the 2025-* revisions, bound to the identity
// that initialized it (issue 14 §3). The SDK owns the protocol state; this
// is the gate's view: who owns it, its own Server (so a tools/list_changed
// notification reaches this session only), and when it must die.
type session struct {
	id     string
	owner  string // identityKey of the initializing caller
	quota  string // what MaxSessionsPerCaller counts against
	server *mcpsdk.Server

	mu       sync.Mutex
	caller   Caller
	listed   []string // tools last listed to this session
	ss       *mcpsdk.ServerSession
	expiry   *time.Timer
	idle     *time.Timer   // closes the session after idleFor without a POST
	idleFor  time.Duration // Config.SessionIdleTimeout
	inFlight int           // POSTs being served: the idle timer waits for them
}

// begin and end bracket a POST on the session: the idle timeout is paused
// while one is served and starts again when the last one ends, as the
// SDK's own timeout did (the gate keeps it because the session fast path
// answers requests the SDK never sees).
func (s *session) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight++
	if s.idle != nil {
		s.idle.Stop()
	}
}

func (s *session) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight--; s.inFlight == 0 && s.idle != nil {
		s.idle.Reset(s.idleFor)
	}
}

func (s *session) stopIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}

// startIdle arms the idle timeout once the SDK has kept the session.
func (s *session) startIdle(ss *mcpsdk.ServerSession) {
	if s.idleFor <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = time.AfterFunc(s.idleFor, func() { _ = ss.Close() })
}

// identityKey is what a session is bound to. Anonymous public readers are
// one identity, as on the HTTP session routes: an anonymous session
// answers anonymous callers only.
func identityKey(p identity.Principal) string {
	if p.Anonymous {
		return "anonymous"
	}
	return p.Type + ":" + p.ID
}

// quotaKey counts anonymous callers per remote address, so one anonymous
// client cannot use up the sessions of every anonymous reader.
func quotaKey(p identity.Principal, r *http.Request) string {
	if !p.Anonymous {
		return identityKey(p)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "anonymous@" + host
}

// renew records the credential of the latest request and re-arms the
// expiry: a session lives as long as the credential its owner last
// presented is accepted.
func (s *session) renew(c Caller) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caller = c
	if s.expiry != nil {
		s.expiry.Stop()
		s.expiry = nil
	}
	if exp := c.expiry(); s.ss != nil && !exp.IsZero() {
		ss := s.ss
		s.expiry = time.AfterFunc(time.Until(exp), func() { _ = ss.Close() })
	}
}

func (s *session) setListed(names []string) (changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed = !slices.Equal(s.listed, names)
	s.listed = names
	return changed
}

func (s *session) snapshot() (Caller, *mcpsdk.ServerSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caller, s.ss
}

// sessionTable is the gate's index of open sessions.
type sessionTable struct {
	mu    sync.Mutex
	byID  map[string]*session
	count map[string]int
	max   int
}

func newSessionTable(max int) *sessionTable {
	return &sessionTable{byID: map[string]*session{}, count: map[string]int{}, max: max}
}

// reserve admits a new session unless its caller is at the cap.
func (t *sessionTable) reserve(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.count[s.quota] >= t.max {
		return false
	}
	t.count[s.quota]++
	t.byID[s.id] = s
	return true
}

func (t *sessionTable) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// remove forgets s and reports whether it was still there.
func (t *sessionTable) remove(s *session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[s.id] != s {
		return false
	}
	delete(t.byID, s.id)
	if t.count[s.quota]--; t.count[s.quota] <= 0 {
		delete(t.count, s.quota)
	}
	return true
}

func (t *sessionTable) all() []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*session, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s)
	}
	return out
}

func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// open reserves a session for an initialize from c.
func (h *Handler) open(c Caller, r *http.Request) (*session, *refusal) {
	s := &session{id: rand.Text(), owner: identityKey(c.Principal), quota: quotaKey(c.Principal, r), caller: c, idleFor: h.cfg.SessionIdleTimeout}
	s.server = h.newServer(s)
	if !h.sessions.reserve(s) {
		h.event(SessionEvent{Kind: EventSessionRefused, Caller: c.Principal, Reason: "too many sessions"})
		ref := refuse(http.StatusTooManyRequests, codeInvalidRequest,
			"too many open MCP sessions for this caller: end one (DELETE) or let one idle out")
		ref.header = sessionsFull(h.cfg.MaxSessionsPerCaller)
		return nil, ref
	}
	return s, nil
}

// mcpSessionsPolicy names the per-caller session cap in its 429, which
// carries the fields every 429 of the gate does (README "Rate limits").
const mcpSessionsPolicy = "mcp-sessions-per-caller"

// mcpSessionRetry is the wait that 429 names: a place comes back when the
// caller ends a session or one idles out, which the gate cannot predict.
const mcpSessionRetry = time.Minute

// sessionsFull is the 429's headers: a budget of sessions held at once.
func sessionsFull(quota int) http.Header {
	p := ratelimit.Policy{Name: mcpSessionsPolicy, Quota: quota, Concurrent: true}
	return p.Refusal(0, mcpSessionRetry, mcpSessionRetry)
}

// adopt runs after the SDK served the initialize: a session the SDK kept
// gets its expiry and is forgotten when it closes (idle timeout, DELETE,
// expiry, Refresh); one it did not keep is released at once.
func (h *Handler) adopt(s *session) {
	var ss *mcpsdk.ServerSession
	for x := range s.server.Sessions() {
		ss = x
	}
	if ss == nil || ss.InitializeParams() == nil {
		h.sessions.remove(s)
		return
	}
	s.mu.Lock()
	s.ss = ss
	c := s.caller
	s.mu.Unlock()
	s.renew(c)
	s.startIdle(ss)
	h.event(SessionEvent{Kind: EventSessionOpened, Caller: c.Principal, SessionID: s.id, Revision: ss.InitializeParams().ProtocolVersion})
	go func() {
		_ = ss.Wait()
		s.renew(Caller{}) // stops the expiry timer
		s.stopIdle()
		if h.sessions.remove(s) {
			h.event(SessionEvent{Kind: EventSessionClosed, Caller: c.Principal, SessionID: s.id, Reason: "ended: DELETE, idle timeout or credential expiry"})
		}
	}()
}

// bind checks that the request on session id comes from its owner.
func (h *Handler) bind(id string, c Caller) (*session, *refusal) {
	s := h.sessions.get(id)
	if s == nil {
		return nil, refuse(http.StatusNotFound, codeInvalidRequest, "session not found: initialize a new one")
	}
	if s.owner != identityKey(c.Principal) {
		h.event(SessionEvent{Kind: EventSessionRefused, Caller: c.Principal, SessionID: id, Reason: "another identity"})
		return nil, refuse(http.StatusForbidden, codeForbidden, "this session belongs to another identity")
	}
	s.renew(c)
	return s, nil
}
