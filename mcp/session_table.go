package mcp

import (
	"slices"
	"sync"
)

// sessionTable is the gate's index of open sessions: by id, and by what
// the per-caller cap counts them against (session.quota).
type sessionTable struct {
	mu      sync.Mutex
	byID    map[string]*session
	byQuota map[string][]*session
	max     int
}

func newSessionTable(max int) *sessionTable {
	return &sessionTable{byID: map[string]*session{}, byQuota: map[string][]*session{}, max: max}
}

// reserve admits s. At its caller's cap it makes room by taking out the
// caller's least recently used idle session, which the caller of reserve
// must close (docs/agents.md "MCP", Sessions): most MCP clients never DELETE a
// session, so refusing the new one would lock them out until an old one
// idled out. Only when every one of the caller's sessions has a request
// in flight is s refused.
func (t *sessionTable) reserve(s *session) (evicted *session, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if held := t.byQuota[s.quota]; len(held) >= t.max {
		if evicted = claimLeastRecentlyUsed(held); evicted == nil {
			return nil, false
		}
		t.forget(evicted)
	}
	t.byQuota[s.quota] = append(t.byQuota[s.quota], s)
	t.byID[s.id] = s
	return evicted, true
}

// claimLeastRecentlyUsed marks the session to evict among held and
// returns it, nil when all are busy. A session whose client still listens
// on its GET stream goes after every one that nobody listens to: a client
// that is gone (the usual reason a caller reaches the cap) holds no
// stream, a running one usually does.
func claimLeastRecentlyUsed(held []*session) *session {
	candidates := make([]idleness, 0, len(held))
	for _, s := range held {
		if st, idle := s.idleness(); idle {
			candidates = append(candidates, st)
		}
	}
	slices.SortFunc(candidates, func(a, b idleness) int {
		if a.listening != b.listening {
			if a.listening {
				return 1
			}
			return -1
		}
		return a.lastUsed.Compare(b.lastUsed)
	})
	for _, c := range candidates {
		if c.s.claim() { // still idle: nothing began on it since idleness
			return c.s
		}
	}
	return nil
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
	t.forget(s)
	return true
}

// forget drops s from both indexes; t.mu is held.
func (t *sessionTable) forget(s *session) {
	delete(t.byID, s.id)
	held := slices.DeleteFunc(t.byQuota[s.quota], func(x *session) bool { return x == s })
	if len(held) == 0 {
		delete(t.byQuota, s.quota)
		return
	}
	t.byQuota[s.quota] = held
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
