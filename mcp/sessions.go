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
)

// session is one MCP session of the 2025-* revisions, bound to the identity
// and the credential that initialized it (docs/agents.md, "MCP"). The SDK owns
// the protocol state; this is the gate's view: who owns it, its own Server (so
// a tools/list_changed notification reaches this session only), and when it
// must die.
type session struct {
	id     string
	owner  string // identityKey of the initializing caller
	cred   string // credentialKey of the initializing caller
	quota  string // what MaxSessionsPerCaller counts against
	server *mcpsdk.Server

	mu        sync.Mutex
	caller    Caller
	listed    []string // tools last listed to this session
	ss        *mcpsdk.ServerSession
	expiry    *time.Timer
	idle      *time.Timer   // closes the session after idleFor without a POST
	idleFor   time.Duration // Config.SessionIdleTimeout
	inFlight  int           // POSTs being served: the idle timer waits for them
	listening int           // GET streams open: its client is still there
	lastUsed  time.Time     // when it opened or its last POST ended
	evicted   bool          // closed to make room (sessionTable.reserve)
}

// begin and end bracket a POST on the session: the idle timeout is paused
// while one is served and starts again when the last one ends, as the
// SDK's own timeout did (the gate keeps it because the session fast path
// answers requests the SDK never sees). A POST in flight also keeps the
// session from being evicted.
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
	s.lastUsed = time.Now()
	if s.inFlight--; s.inFlight == 0 && s.idle != nil {
		s.idle.Reset(s.idleFor)
	}
}

// listen and unlisten bracket a GET stream: it does not pause the idle
// timeout (the SDK's did not either), but a session someone listens to is
// evicted only after every one nobody listens to.
func (s *session) listen() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listening++
}

func (s *session) unlisten() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listening--
	s.lastUsed = time.Now()
}

// idleness is what eviction compares sessions by.
type idleness struct {
	s         *session
	listening bool
	lastUsed  time.Time
}

// idleness reports whether s could be evicted now: initialized (the SDK
// kept it) and no POST in flight.
func (s *session) idleness() (idleness, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return idleness{s: s, listening: s.listening > 0, lastUsed: s.lastUsed}, s.idleNow()
}

func (s *session) idleNow() bool { return s.ss != nil && s.inFlight == 0 && !s.evicted }

// claim marks s evicted if it is still idle.
func (s *session) claim() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.idleNow() {
		return false
	}
	s.evicted = true
	return true
}

// gone reports whether s was evicted: a request that found it just before
// must not be answered on it (the fast path leaves it to the SDK, which
// answers 404 on a closed session).
func (s *session) gone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evicted
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

// credentialKey is the credential a session is bound to within its
// identity: the API key that opened it (by its public prefix), or the
// agent's JWTs, so that a client refreshing its token (as MCP's
// authorization flow has it do) keeps its session while a key or token of
// another kind does not take over a session (docs/agents.md "MCP", Sessions):
// after a key is revoked, the same agent's JWT cannot keep its session.
func credentialKey(p identity.Principal) string {
	if p.Credential == identity.CredentialAPIKey {
		return p.Credential + ":" + p.KeyID
	}
	return p.Credential
}

// quotaKey counts anonymous callers per client address, so one anonymous
// client cannot use up the sessions of every anonymous reader. The address
// is Config.ClientIP's (behind Caddy: its client IP, trusted proxies
// applied), or the connection's.
func (h *Handler) quotaKey(p identity.Principal, r *http.Request) string {
	if !p.Anonymous {
		return identityKey(p)
	}
	if h.cfg.ClientIP != nil {
		if ip := h.cfg.ClientIP(r); ip != "" {
			return "anonymous@" + ip
		}
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

// newSession is the gate's record of an initialize from c.
func (h *Handler) newSession(c Caller, r *http.Request) *session {
	s := &session{id: rand.Text(), owner: identityKey(c.Principal), cred: credentialKey(c.Principal),
		quota: h.quotaKey(c.Principal, r), caller: c, idleFor: h.cfg.SessionIdleTimeout, lastUsed: time.Now()}
	s.server = h.newServer(s)
	return s
}

// adopt runs after the SDK served the initialize: a session the SDK kept
// gets its expiry and is forgotten when it closes (idle timeout, DELETE,
// expiry, Refresh, eviction); one it did not keep is released at once.
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
	s.lastUsed = time.Now()
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
