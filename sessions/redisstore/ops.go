package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/wikigate/wikigate/sessions"
)

// versionBytes prefixes every stored value with its version.
const versionBytes = 8

// Admit checks the anonymous budget for an anonymous owner, and that Redis
// answers for anyone: the gateway asks before answering a first question,
// so a refused or unservable create costs no backend call.
func (s *Store) Admit(ctx context.Context, owner sessions.Owner) error {
	if !owner.Anonymous {
		if err := s.rdb.Ping(ctx).Err(); err != nil {
			return unavailable(err)
		}
		return nil
	}
	live, err := admitScript.Run(ctx, s.rdb, []string{s.anonymousKey()}, s.cfg.Now().UnixMilli()).Int()
	if err != nil {
		return unavailable(err)
	}
	if live >= s.cfg.AnonymousMaxSessions {
		return s.budgetSpent()
	}
	return nil
}

// Create stores a new session; Redis expires it ExpiredGrace after its
// ExpiresAt (a relative expiry, so the gates' and Redis's clocks need not
// agree).
func (s *Store) Create(ctx context.Context, sess *sessions.Session) error {
	if !sessions.ValidID(sess.ID) {
		return errors.New("session id is malformed")
	}
	now := s.cfg.Now()
	life := sess.ExpiresAt.Sub(now)
	if life > s.cfg.TTL {
		return errors.New("session lifetime exceeds the store ttl")
	}
	value, err := s.value(sess, 1)
	if err != nil {
		return err
	}
	anonymous := "0"
	if sess.Owner.Anonymous {
		anonymous = "1"
	}
	keys := []string{s.sessionKey(sess.ID), s.anonymousKey()}
	res, err := createScript.Run(ctx, s.rdb, keys, value, max(ms(life+s.cfg.ExpiredGrace), 1),
		anonymous, now.UnixMilli(), sess.ExpiresAt.UnixMilli(), s.cfg.AnonymousMaxSessions, sess.ID).Text()
	switch {
	case err != nil:
		return unavailable(err)
	case res == "budget":
		return s.budgetSpent()
	case res == "exists":
		return errors.New("session id already exists")
	}
	return nil
}

// Get returns the session. Like the embedded store it reports a session
// past its expiry by more than ExpiredGrace as not found, whatever Redis
// has not dropped yet.
func (s *Store) Get(ctx context.Context, id string) (*sessions.Session, error) {
	if !sessions.ValidID(id) {
		return nil, sessions.ErrNotFound
	}
	sess, _, err := s.load(ctx, id)
	return sess, err
}

// load reads the session and the version it was stored under.
func (s *Store) load(ctx context.Context, id string) (*sessions.Session, []byte, error) {
	raw, err := s.rdb.Get(ctx, s.sessionKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil, sessions.ErrNotFound
	}
	if err != nil {
		return nil, nil, unavailable(err)
	}
	if len(raw) < versionBytes {
		return nil, nil, fmt.Errorf("redis session store: stored session %s is truncated", id)
	}
	sess, err := sessions.Unmarshal(raw[versionBytes:])
	if err != nil {
		return nil, nil, err
	}
	if s.cfg.Now().After(sess.ExpiresAt.Add(s.cfg.ExpiredGrace)) {
		return nil, nil, sessions.ErrNotFound
	}
	return sess, raw[:versionBytes], nil
}

// value is what is stored: the version, then the compressed session.
func (s *Store) value(sess *sessions.Session, version uint64) ([]byte, error) {
	data, err := sessions.Marshal(sess)
	if err != nil {
		return nil, err
	}
	if len(data) > s.cfg.MaxSessionBytes {
		return nil, fmt.Errorf("redis session store: session of %d bytes exceeds the %d byte limit", len(data), s.cfg.MaxSessionBytes)
	}
	out := make([]byte, versionBytes, versionBytes+len(data))
	binary.BigEndian.PutUint64(out, version)
	return append(out, data...), nil
}

// budgetSpent is the refusal of an anonymous session past the budget that
// every gate shares.
func (s *Store) budgetSpent() error {
	return &sessions.BudgetError{MaxSessions: s.cfg.AnonymousMaxSessions}
}
