package sessions

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allegro/bigcache/v3"
)

// Defaults of MemoryConfig.
const (
	DefaultTTL          = 30 * time.Minute
	DefaultExpiredGrace = time.Hour
	DefaultMaxBytes     = 256 << 20
)

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
	TTL          time.Duration    // session lifetime handed to New; default 30m
	ExpiredGrace time.Duration    // how long an expired session stays readable; default 1h
	MaxBytes     int              // memory for session data; default 256 MiB, at least 1 MiB
	Shards       int              // bigcache shards, a power of two; default fits MaxBytes
	Now          func() time.Time // clock for the grace check; default time.Now
}

// MemoryStore is the embedded, per-process session store (DESIGN §8):
// sessions serialized into bigcache, which keeps them off the GC's pointer
// graph. Entries live TTL+ExpiredGrace after their last write; when
// MaxBytes is reached the oldest entries are evicted.
type MemoryStore struct {
	cache     *bigcache.BigCache
	cfg       MemoryConfig
	maxEntry  int
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
	cache, err := bigcache.New(context.Background(), bigcache.Config{
		Shards:           cfg.Shards,
		LifeWindow:       cfg.TTL + cfg.ExpiredGrace,
		CleanWindow:      cleanWindow,
		MaxEntrySize:     typicalEntryBytes,
		HardMaxCacheSize: cfg.MaxBytes / mib,
		Verbose:          false,
	})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return &MemoryStore{cache: cache, cfg: cfg, maxEntry: cfg.shardBytes() / 4}, nil
}

func (c MemoryConfig) withDefaults() (MemoryConfig, error) {
	if c.TTL < 0 || c.ExpiredGrace < 0 || c.MaxBytes < 0 || c.Shards < 0 {
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
	if c.MaxBytes < mib {
		return c, errors.New("session store: max bytes must be at least 1 MiB")
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Shards == 0 {
		// The largest power of two that leaves each shard minShardBytes.
		c.Shards = 1 << (bits.Len(uint(min(maxShards, c.MaxBytes/minShardBytes))) - 1)
	}
	if c.Shards&(c.Shards-1) != 0 {
		return c, errors.New("session store: shards must be a power of two")
	}
	if c.shardBytes() < minShardBytes {
		return c, errors.New("session store: too many shards for max bytes (each needs 1 MiB)")
	}
	return c, nil
}

// shardBytes is the memory of one bigcache shard (HardMaxCacheSize is in
// whole MiB).
func (c MemoryConfig) shardBytes() int {
	return (c.MaxBytes / mib) * mib / c.Shards
}

// TTL is the session lifetime the store is sized for; pass it to New.
func (m *MemoryStore) TTL() time.Duration { return m.cfg.TTL }

// Create stores a new session. A session living longer than the store's
// TTL is refused: bigcache would evict it before it expired.
func (m *MemoryStore) Create(ctx context.Context, s *Session) error {
	if err := m.ready(ctx); err != nil {
		return err
	}
	if !validID(s.ID) {
		return errors.New("session id is malformed")
	}
	if s.ExpiresAt.Sub(m.cfg.Now()) > m.cfg.TTL {
		return errors.New("session lifetime exceeds the store ttl")
	}
	defer m.locks.lock(s.ID)()
	if _, err := m.cache.Get(s.ID); err == nil {
		return errSessionExists
	}
	return m.put(s)
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
	return m.load(id)
}

// Update runs fn on the session under the session's lock and stores the
// result. An error from fn leaves the stored session unchanged and is
// returned as is; fn may not change the session id.
func (m *MemoryStore) Update(ctx context.Context, id string, fn func(*Session) error) error {
	if err := m.ready(ctx); err != nil {
		return err
	}
	if !validID(id) {
		return ErrNotFound
	}
	defer m.locks.lock(id)()
	s, err := m.load(id)
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		return err
	}
	if s.ID != id {
		return errors.New("session update changed the session id")
	}
	return m.put(s)
}

// Close stops bigcache's cleanup goroutine. It is safe to call more than
// once; the store refuses use afterwards.
func (m *MemoryStore) Close() error {
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		_ = m.cache.Close()
	})
	return nil
}

func (m *MemoryStore) ready(ctx context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

func (m *MemoryStore) load(id string) (*Session, error) {
	data, err := m.cache.Get(id)
	if errors.Is(err, bigcache.ErrEntryNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	s, err := decodeSession(data)
	if err != nil {
		return nil, err
	}
	if m.cfg.Now().After(s.ExpiresAt.Add(m.cfg.ExpiredGrace)) {
		return nil, ErrNotFound
	}
	return s, nil
}

func (m *MemoryStore) put(s *Session) error {
	data, err := encodeSession(s)
	if err != nil {
		return err
	}
	// bigcache evicts a whole shard trying to fit an entry that cannot fit,
	// and may do so for entries above a quarter of a shard while its buffer
	// is still growing; refuse those instead.
	if len(data) > m.maxEntry {
		return fmt.Errorf("session store: session of %d bytes exceeds the %d byte limit", len(data), m.maxEntry)
	}
	if err := m.cache.Set(s.ID, data); err != nil {
		return fmt.Errorf("session store: storing session failed (%d bytes): %w", len(data), err)
	}
	return nil
}
