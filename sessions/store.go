package sessions

import (
	"context"
	"errors"
	"sync"
)

// Store keeps sessions. It is small on purpose so a shared store (Redis)
// can replace the embedded one when wikigate runs as several processes.
type Store interface {
	// Admit reports whether a new session of owner would be accepted now;
	// ErrAnonymousBudget when owner is anonymous and their budget is spent.
	Admit(ctx context.Context, owner Owner) error
	// Create stores a new session, checking Admit again.
	Create(ctx context.Context, s *Session) error
	// Get returns a copy of the session or ErrNotFound. It does not check
	// expiry (the caller does, through Authorize); an expired session stays
	// readable for a grace period so its owner is told "expired", not
	// "not found".
	Get(ctx context.Context, id string) (*Session, error)
	// Update runs fn on the stored session and stores the result unless fn
	// fails. Updates of one session are serialized, so no turn is lost to
	// concurrent follow-ups. A shared store may run fn more than once (it
	// retries when another gate wrote the session in between), so fn must
	// only change the session and what it hands back.
	Update(ctx context.Context, id string, fn func(*Session) error) error
	// Close releases the store.
	Close() error
}

// ErrClosed is returned by a store used after Close.
var ErrClosed = errors.New("session store closed")

// ErrUnavailable wraps a shared store's failure to answer (Redis down,
// timed out, out of memory): the gateway answers 503
// session_store_unavailable, never 500, and the caller may retry.
var ErrUnavailable = errors.New("session store unavailable")

// errSessionExists guards against overwriting a live session; with
// 128-bit random ids it means a bug, not bad luck.
var errSessionExists = errors.New("session id already exists")

// stripes serializes read-modify-write per session id without one lock per
// session: ids hash onto a fixed set of mutexes.
type stripes [256]sync.Mutex

func (s *stripes) lock(id string) func() {
	// FNV-1a, inline so locking does not allocate.
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	m := &s[h%uint32(len(s))]
	m.Lock()
	return m.Unlock
}

// validID reports whether id looks like one New mints (32 lowercase hex
// digits), so arbitrary path input never reaches the cache.
func validID(id string) bool {
	if len(id) != 2*idBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
