package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wikigate/wikigate/feedback"
)

// maxAttempts bounds the retries of a submission that lost a race it can
// only see after the fact (an idempotency entry that expired and vanished
// between two statements).
const maxAttempts = 3

// errRetry asks Submit to run its transaction again.
var errRetry = errors.New("retry")

// Submit is feedback.Store.Submit on PostgreSQL, in one transaction:
//
//  1. An idempotency key is claimed with INSERT … ON CONFLICT DO NOTHING.
//     A second submission with the same key, from any gate, waits on the
//     unique index until the first commits, then replays its stored
//     response byte for byte (or gets ErrIdempotencyConflict).
//  2. The occurrence merges into the open record of its dedupe key, locked
//     with SELECT … FOR UPDATE, or opens one; the partial unique index on
//     open records makes two concurrent first reports merge.
//  3. render runs inside the transaction and its bytes are stored with the
//     key; the caller gets them only after COMMIT succeeded.
//
// A database out of reach is feedback.ErrUnavailable and nothing is kept.
func (s *Store) Submit(ctx context.Context, sub feedback.Submission, render func(feedback.Result) ([]byte, error)) (feedback.Result, error) {
	sub, render, err := feedback.PrepareSubmission(sub, s.now(), render)
	if err != nil {
		return feedback.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return feedback.Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var res feedback.Result
	for range maxAttempts {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			res, err = s.submitTx(ctx, tx, sub, render)
			return err
		})
		if !errors.Is(err, errRetry) {
			break
		}
	}
	if err != nil {
		return feedback.Result{}, s.classify(err)
	}
	if !res.Replayed && s.sink != nil {
		s.sync.Kick()
	}
	return res, nil
}

// renderError is a render failure: the caller's, not the database's.
type renderError struct{ err error }

func (e renderError) Error() string { return "rendering feedback response: " + e.err.Error() }
func (e renderError) Unwrap() error { return e.err }

// classify keeps the errors callers branch on and marks the rest as the
// database being out of reach.
func (s *Store) classify(err error) error {
	var re renderError
	switch {
	case errors.As(err, &re), errors.Is(err, feedback.ErrIdempotencyConflict), errors.Is(err, errRetry):
		return err
	}
	return unavailable(err)
}

func (s *Store) submitTx(ctx context.Context, tx pgx.Tx, sub feedback.Submission, render func(feedback.Result) ([]byte, error)) (feedback.Result, error) {
	now := s.now()
	if err := purgeExpired(ctx, tx, now); err != nil {
		return feedback.Result{}, err
	}
	ikey := feedback.IdempotencyKey(sub)
	if ikey != nil {
		claimed, err := claimKey(ctx, tx, ikey, sub.BodyHash, now, now.Add(s.idemTTL))
		if err != nil {
			return feedback.Result{}, err
		}
		if !claimed {
			return replay(ctx, tx, ikey, sub.BodyHash)
		}
	}
	sr, created, err := s.upsert(ctx, tx, sub)
	if err != nil {
		return feedback.Result{}, err
	}
	res := feedback.Result{Record: sr.Public(), Created: created}
	if res.Response, err = render(res); err != nil {
		return feedback.Result{}, renderError{err}
	}
	if ikey != nil {
		_, err = tx.Exec(ctx, `UPDATE wikigate_feedback_idempotency SET response = $2, record_id = $3, created = $4 WHERE key = $1`,
			ikey, res.Response, sr.ID, created)
	}
	return res, err
}

// purgeBatch bounds how many expired keys one submission deletes.
const purgeBatch = 64

// purgeExpired deletes a batch of expired idempotency keys; SKIP LOCKED
// keeps concurrent submissions from queueing on each other's purge.
func purgeExpired(ctx context.Context, tx pgx.Tx, now time.Time) error {
	_, err := tx.Exec(ctx, `DELETE FROM wikigate_feedback_idempotency WHERE key IN (
		SELECT key FROM wikigate_feedback_idempotency WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`, now, purgeBatch)
	return err
}

// claimKey inserts the key, replacing an expired entry. False: a live
// entry exists (committed by another submission, which this one waited
// for if it was still running).
func claimKey(ctx context.Context, tx pgx.Tx, key []byte, bodyHash string, now, expires time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO wikigate_feedback_idempotency (key, body_hash, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET body_hash = EXCLUDED.body_hash, response = NULL, record_id = NULL, created = false, expires_at = EXCLUDED.expires_at
		WHERE wikigate_feedback_idempotency.expires_at <= $4`, key, bodyHash, expires, now)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// replay answers a retry with the first call's stored response.
func replay(ctx context.Context, tx pgx.Tx, key []byte, bodyHash string) (feedback.Result, error) {
	var hash, recordID string
	var response []byte
	var created bool
	err := tx.QueryRow(ctx, `SELECT body_hash, response, coalesce(record_id, ''), created FROM wikigate_feedback_idempotency WHERE key = $1`, key).
		Scan(&hash, &response, &recordID, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return feedback.Result{}, errRetry // purged between the two statements
	}
	if err != nil {
		return feedback.Result{}, err
	}
	if hash != bodyHash {
		return feedback.Result{}, feedback.ErrIdempotencyConflict
	}
	sr, err := loadByID(ctx, tx, recordID)
	if err != nil {
		return feedback.Result{}, err
	}
	return feedback.Result{Record: sr.Public(), Created: created, Replayed: true, Response: response}, nil
}

// upsert merges sub into the open record of its dedupe key under a row
// lock, or inserts a new one. Losing the insert race to another gate means
// its record now exists: the next round merges into it.
func (s *Store) upsert(ctx context.Context, tx pgx.Tx, sub feedback.Submission) (*feedback.StoredRecord, bool, error) {
	key := feedback.DedupeKey(sub)
	for range maxAttempts {
		sr, seq, err := lockOpen(ctx, tx, sub.Tool, key)
		if err != nil {
			return nil, false, err
		}
		if sr != nil {
			sr.Merge(sub, s.sink != nil)
			return sr, false, saveRecord(ctx, tx, seq, sr)
		}
		sr, ok, err := insertOpen(ctx, tx, sub, key, s.sink != nil)
		if err != nil || ok {
			return sr, ok, err
		}
	}
	return nil, false, errRetry
}

func lockOpen(ctx context.Context, tx pgx.Tx, tool, key string) (*feedback.StoredRecord, int64, error) {
	var seq int64
	var doc []byte
	err := tx.QueryRow(ctx, `SELECT seq, doc FROM wikigate_feedback_records WHERE tool = $1 AND dedupe_key = $2 AND status = 'open' FOR UPDATE`, tool, key).
		Scan(&seq, &doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	sr, err := decode(doc)
	return sr, seq, err
}

// insertOpen inserts a new open record; false when another transaction
// holds the open slot of the key.
func insertOpen(ctx context.Context, tx pgx.Tx, sub feedback.Submission, key string, withSink bool) (*feedback.StoredRecord, bool, error) {
	seq, id, err := nextID(ctx, tx, sub.Tool)
	if err != nil {
		return nil, false, err
	}
	sr := feedback.NewStoredRecord(sub, key, id)
	sr.Merge(sub, withSink)
	doc, err := json.Marshal(sr)
	if err != nil {
		return nil, false, err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO wikigate_feedback_records (seq, id, tool, dedupe_key, status, sync_pending, doc)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tool, dedupe_key) WHERE status = 'open' DO NOTHING`,
		seq, sr.ID, sr.Tool, sr.DedupeKey, sr.Status, sr.SyncPending, doc)
	if err != nil {
		return nil, false, err
	}
	return sr, tag.RowsAffected() == 1, nil
}

func nextID(ctx context.Context, tx pgx.Tx, tool string) (int64, string, error) {
	var seq int64
	if err := tx.QueryRow(ctx, "SELECT nextval('wikigate_feedback_seq')").Scan(&seq); err != nil {
		return 0, "", err
	}
	return seq, feedback.FormatID(tool, uint64(seq)), nil
}

// saveRecord writes sr back with its indexed columns.
func saveRecord(ctx context.Context, tx pgx.Tx, seq int64, sr *feedback.StoredRecord) error {
	doc, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE wikigate_feedback_records SET status = $2, sync_pending = $3, doc = $4 WHERE seq = $1`,
		seq, sr.Status, sr.SyncPending, doc)
	return err
}

func loadByID(ctx context.Context, q pgx.Tx, id string) (*feedback.StoredRecord, error) {
	var doc []byte
	err := q.QueryRow(ctx, `SELECT doc FROM wikigate_feedback_records WHERE id = $1`, id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, feedback.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return decode(doc)
}

func decode(doc []byte) (*feedback.StoredRecord, error) {
	sr := new(feedback.StoredRecord)
	if err := json.Unmarshal(doc, sr); err != nil {
		return nil, fmt.Errorf("decoding feedback record: %w", err)
	}
	return sr, nil
}
