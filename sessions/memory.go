package sessions

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of MemoryConfig.
const (
	DefaultTTL                  = 30 * time.Minute
	DefaultExpiredGrace         = time.Hour
	DefaultMaxBytes             = 256 << 20
	DefaultAnonymousMaxBytes    = 32 << 20
	DefaultAnonymousMaxSessions = 10000
)

// ErrAnonymousBudget refuses a new anonymous session while the anonymous
// budget is spent; the gateway answers 429 rate_limited.
var ErrAnonymousBudget = errors.New("the anonymous session budget is full")

const (
	mib = 1 << 20
	// minShardBytes is the least memory a cache shard may have: an entry
	// larger than its shard cannot be stored, and a session near its token
	// limit (12000 tokens of CJK text is ~150 KB) must fit.
	minShardBytes = mib
	maxShards     = 256
	// cleanWindow is how often bigcache drops entries past their life.
	cleanWindow = time.Minute
	// typicalEntryBytes sizes bigcache's initial buffers (a session with a
	// couple of turns); buffers grow as needed.
	typicalEntryBytes = 2048
)

// MemoryConfig configures a MemoryStore; zero fields take the defaults.
type MemoryConfig struct {
	TTL          time.Duration // session lifetime handed to New; default 30m
	ExpiredGrace time.Duration // how long an expired session stays readable; default 1h
	// MaxBytes is the memory for signed-in callers' sessions (agents and
	// humans with a token); default 256 MiB, at least 1 MiB. When it is
	// full the oldest of those sessions are evicted.
	MaxBytes int
	// AnonymousMaxBytes and AnonymousMaxSessions budget anonymous visitors'
	// sessions, kept apart so that no number of anonymous sessions can
	// evict a signed-in caller's. A new anonymous session is refused
	// (ErrAnonymousBudget) once AnonymousMaxSessions are live or they fill
	// half of AnonymousMaxBytes (the other half is room for their turns).
	// Defaults 32 MiB (at least 1 MiB) and 10000.
	AnonymousMaxBytes    int
	AnonymousMaxSessions int
	Shards               int              // shards of the signed-in partition, a power of two; default fits MaxBytes
	Now                  func() time.Time // clock for the grace check; default time.Now
}

// MemoryStore is the embedded, per-process session store (docs/operators.md, "sessions"):
// sessions serialized into bigcache, which keeps them off the GC's pointer
// graph. Entries live TTL+ExpiredGrace after their last write. Signed-in
// callers' sessions and anonymous ones live in separate partitions; when a
// partition is full its own oldest entries are evicted, and anonymous
// creates are refused before theirs is.
type MemoryStore struct {
	named     *partition // sessions of agents and signed-in humans
	anonymous *partition // sessions of anonymous visitors
	cfg       MemoryConfig
	locks     stripes
	closeOnce sync.Once
	closed    atomic.Bool
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore builds a MemoryStore. Call Close when done with it.
func NewMemoryStore(cfg MemoryConfig) (*MemoryStore, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	life := cfg.TTL + cfg.ExpiredGrace
	named, err := newPartition(cfg.MaxBytes, cfg.Shards, life)
	if err != nil {
		return nil, err
	}
	anonymous, err := newPartition(cfg.AnonymousMaxBytes, shardsFor(cfg.AnonymousMaxBytes), life)
	if err != nil {
		_ = named.close()
		return nil, err
	}
	return &MemoryStore{named: named, anonymous: anonymous, cfg: cfg}, nil
}

func (c MemoryConfig) withDefaults() (MemoryConfig, error) {
	if c.TTL < 0 || c.ExpiredGrace < 0 || c.MaxBytes < 0 || c.Shards < 0 || c.AnonymousMaxBytes < 0 || c.AnonymousMaxSessions < 0 {
		return c, errors.New("session store: negative config value")
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.ExpiredGrace == 0 {
		c.ExpiredGrace = DefaultExpiredGrace
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.AnonymousMaxBytes == 0 {
		c.AnonymousMaxBytes = DefaultAnonymousMaxBytes
	}
	if c.AnonymousMaxSessions == 0 {
		c.AnonymousMaxSessions = DefaultAnonymousMaxSessions
	}
	if c.MaxBytes < mib || c.AnonymousMaxBytes < mib {
		return c, errors.New("session store: max bytes must be at least 1 MiB")
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Shards == 0 {
		c.Shards = shardsFor(c.MaxBytes)
	}
	if c.Shards&(c.Shards-1) != 0 {
		return c, errors.New("session store: shards must be a power of two")
	}
	if shardBytes(c.MaxBytes, c.Shards) < minShardBytes {
		return c, errors.New("session store: too many shards for max bytes (each needs 1 MiB)")
	}
	return c, nil
}

// TTL is the session lifetime the store is sized for; pass it to New.
func (m *MemoryStore) TTL() time.Duration { return m.cfg.TTL }

// Admit reports whether a new session of owner would be stored now:
// ErrAnonymousBudget when owner is anonymous and their budget is spent.
// The gateway asks before answering a first question, so a refused
// visitor costs no backend call; Create checks again.
func (m *MemoryStore) Admit(ctx context.Context, owner Owner) error {
	if err := m.ready(ctx); err != nil {
		return err
	}
	if !owner.Anonymous {
		return nil
	}
	live, bytes := m.anonymous.holds()
	if live >= int64(m.cfg.AnonymousMaxSessions) || bytes >= int64(m.cfg.AnonymousMaxBytes/2) {
		return &BudgetError{MaxSessions: m.cfg.AnonymousMaxSessions}
	}
	return nil
}

// Create stores a new session. A session living longer than the store's
// TTL is refused: bigcache would evict it before it expired.
func (m *MemoryStore) Create(ctx context.Context, s *Session) error {
	if err := m.Admit(ctx, s.Owner); err != nil {
		return err
	}
	if !validID(s.ID) {
		return errors.New("session id is malformed")
	}
	if s.ExpiresAt.Sub(m.cfg.Now()) > m.cfg.TTL {
		return errors.New("session lifetime exceeds the store ttl")
	}
	defer m.locks.lock(s.ID)()
	if _, _, err := m.find(s.ID); err == nil {
		return errSessionExists
	}
	data, err := encodeSession(s)
	if err != nil {
		return err
	}
	return m.partitionOf(s.Owner).put(s.ID, data, 0)
}

// Get returns a fresh copy of the session. A session past its expiry by
// more than ExpiredGrace is ErrNotFound even before bigcache drops it, so
// the answer does not depend on when its cleanup last ran.
func (m *MemoryStore) Get(ctx context.Context, id string) (*Session, error) {
	if err := m.ready(ctx); err != nil {
		return nil, err
	}
	if !validID(id) {
		return nil, ErrNotFound
	}
	s, _, _, err := m.load(id)
	return s, err
}

// Update runs fn on the session under the session's lock and stores the
// result. An error from fn leaves the stored session unchanged and is
// returned as is; fn may not change the session id or owner. A session
// bigcache dropped since the caller read it is ErrNotFound.
func (m *MemoryStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	if err := m.ready(ctx); err != nil {
		return err
	}
	if !validID(id) {
		return ErrNotFound
	}
	defer m.locks.lock(id)()
	s, p, previous, err := m.load(id)
	if err != nil {
		return err
	}
	owner := s.Owner
	if err := fn(s); err != nil {
		return err
	}
	if s.ID != id || s.Owner != owner {
		return errors.New("session update changed the session id or owner")
	}
	data, err := encodeSession(s)
	if err != nil {
		return err
	}
	return p.put(id, data, previous)
}

// Close stops bigcache's cleanup goroutines. It is safe to call more than
// once; the store refuses use afterwards.
func (m *MemoryStore) Close() error {
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		_ = m.named.close()
		_ = m.anonymous.close()
	})
	return nil
}

func (m *MemoryStore) ready(ctx context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

func (m *MemoryStore) partitionOf(o Owner) *partition {
	if o.Anonymous {
		return m.anonymous
	}
	return m.named
}

// find looks id up in both partitions (ids do not say whose they are).
func (m *MemoryStore) find(id string) ([]byte, *partition, error) {
	for _, p := range []*partition{m.named, m.anonymous} {
		data, err := p.get(id)
		if !errors.Is(err, ErrNotFound) {
			return data, p, err
		}
	}
	return nil, nil, ErrNotFound
}

// load decodes the session id, and says where it is stored and what it
// costs there.
func (m *MemoryStore) load(id string) (*Session, *partition, int, error) {
	data, p, err := m.find(id)
	if err != nil {
		return nil, nil, 0, err
	}
	s, err := decodeSession(data)
	if err != nil {
		return nil, nil, 0, err
	}
	if m.cfg.Now().After(s.ExpiresAt.Add(m.cfg.ExpiredGrace)) {
		return nil, nil, 0, ErrNotFound
	}
	return s, p, stored(id, data), nil
}
