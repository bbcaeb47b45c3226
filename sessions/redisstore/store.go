// Package redisstore keeps AnswerSessions in Redis, so any number of gates
// behind a load balancer share them and a session outlives a gate restart
// (docs/operators.md, "Several gates"). It applies the same owner, token, scope and expiry rules
// as the embedded store (they live in package sessions and run on every
// gate), and stores the same compressed bytes.
//
// Keys, under the configured prefix (default "wikigate:"):
//
//	<prefix>session:<id>         8-byte big-endian version, then the
//	                             session as sessions.Marshal writes it;
//	                             Redis expires it ExpiresAt+ExpiredGrace
//	                             after creation (TTL held by Redis)
//	<prefix>sessions:anonymous   sorted set of live anonymous session ids,
//	                             scored by their ExpiresAt (Unix ms)
//
// A turn is a read, a change on the gate, and a compare-and-set script that
// writes only if the version is still the one read; on a clash the gate
// reads again and re-applies the turn, so concurrent turns on one session,
// through one gate or several, never lose one.
//
// Anonymous budget: Redis's memory is shared by every gate and not the
// gate's to partition, so the budget is a count: at most
// AnonymousMaxSessions unexpired anonymous sessions across all gates,
// checked and taken in one script (two gates cannot both take the last
// place). A session past its ExpiresAt no longer counts, even while it is
// still kept to answer "expired". Each session is capped at
// MaxSessionBytes, which bounds what anonymous visitors can hold in total.
// Configure Redis with maxmemory-policy noeviction (or volatile-*): a full
// Redis then refuses writes (503) instead of dropping signed-in callers'
// sessions.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wikigate/wikigate/sessions"
)

// Defaults of Config.
const (
	DefaultMaxSessionBytes = 1 << 20
	DefaultKeyPrefix       = "wikigate:"
)

// Config configures a Store; zero fields take the defaults of
// sessions.MemoryConfig where they mean the same.
type Config struct {
	KeyPrefix            string        // default "wikigate:"
	TTL                  time.Duration // session lifetime handed to New; default 30m
	ExpiredGrace         time.Duration // how long an expired session stays readable; default 1h
	AnonymousMaxSessions int           // live anonymous sessions across all gates; default 10000
	MaxSessionBytes      int           // largest stored session; default 1 MiB
	Now                  func() time.Time
}

// Store is a sessions.Store on Redis.
type Store struct {
	rdb *redis.Client
	cfg Config
}

var _ sessions.Store = (*Store)(nil)

// New builds a Store on rdb, which it owns from now on (Close closes it).
// It does no I/O: a gate starts while Redis is down and its session routes
// answer 503 until Redis is back.
func New(rdb *redis.Client, cfg Config) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redis session store: no client")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Store{rdb: rdb, cfg: cfg}, nil
}

func (c Config) withDefaults() (Config, error) {
	if c.TTL < 0 || c.ExpiredGrace < 0 || c.AnonymousMaxSessions < 0 || c.MaxSessionBytes < 0 {
		return c, errors.New("redis session store: negative config value")
	}
	if c.KeyPrefix == "" {
		c.KeyPrefix = DefaultKeyPrefix
	}
	if c.TTL == 0 {
		c.TTL = sessions.DefaultTTL
	}
	if c.ExpiredGrace == 0 {
		c.ExpiredGrace = sessions.DefaultExpiredGrace
	}
	if c.AnonymousMaxSessions == 0 {
		c.AnonymousMaxSessions = sessions.DefaultAnonymousMaxSessions
	}
	if c.MaxSessionBytes == 0 {
		c.MaxSessionBytes = DefaultMaxSessionBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// TTL is the session lifetime the store is configured for; pass it to New.
func (s *Store) TTL() time.Duration { return s.cfg.TTL }

// Health is one round trip to Redis, for /healthz.
func (s *Store) Health(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

// Close closes the client's connections.
func (s *Store) Close() error { return s.rdb.Close() }

func (s *Store) sessionKey(id string) string { return s.cfg.KeyPrefix + "session:" + id }
func (s *Store) anonymousKey() string        { return s.cfg.KeyPrefix + "sessions:anonymous" }

// unavailable wraps a Redis failure so the gateway answers 503; the cause
// stays in the chain (a caller's own cancellation is still recognizable).
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", sessions.ErrUnavailable, err)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }
