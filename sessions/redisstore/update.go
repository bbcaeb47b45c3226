package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/wikigate/wikigate/sessions"
)

// maxAttempts bounds the retries of one Update. A clash means another
// turn of the same session was stored between this one's read and write;
// each retry costs two round trips, so even a burst of concurrent turns
// settles well within it.
const maxAttempts = 50

// Update runs fn on the stored session and writes the result only if no
// other write happened since it was read (compare-and-set on the version);
// otherwise it reads again and runs fn again. An error from fn leaves the
// session unchanged; fn may not change the session id or owner.
func (s *Store) Update(ctx context.Context, id string, fn func(*sessions.Session) error) error {
	if !sessions.ValidID(id) {
		return sessions.ErrNotFound
	}
	for attempt := range maxAttempts {
		written, err := s.tryUpdate(ctx, id, fn)
		if err != nil || written {
			return err
		}
		if err := backoff(ctx, attempt); err != nil {
			return unavailable(err)
		}
	}
	return unavailable(errors.New("too many concurrent updates of one session"))
}

// tryUpdate is one read, change and compare-and-set; written is false when
// another write came first.
func (s *Store) tryUpdate(ctx context.Context, id string, fn func(*sessions.Session) error) (written bool, err error) {
	sess, version, err := s.load(ctx, id)
	if err != nil {
		return false, err
	}
	owner := sess.Owner
	if err := fn(sess); err != nil {
		return false, err
	}
	if sess.ID != id || sess.Owner != owner {
		return false, errors.New("session update changed the session id or owner")
	}
	value, err := s.value(sess, binary.BigEndian.Uint64(version)+1)
	if err != nil {
		return false, err
	}
	res, err := casScript.Run(ctx, s.rdb, []string{s.sessionKey(id)}, version, value).Int()
	switch {
	case err != nil:
		return false, unavailable(err)
	case res == 0:
		return false, sessions.ErrNotFound
	}
	return res == 1, nil
}

// backoff waits a little, more after each clash and with jitter, so
// clashing gates do not retry in lockstep.
func backoff(ctx context.Context, attempt int) error {
	ceiling := time.Millisecond << min(attempt, 5)
	t := time.NewTimer(rand.N(ceiling) + time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
