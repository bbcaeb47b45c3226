package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wikigate/wikigate/feedback"
)

// leaseTime is how long a gate owns an outbox record it claimed. It is far
// longer than one sink call (GitHub's 10s timeout), so a lease only runs
// out when its gate died; then another gate takes the record over.
const leaseTime = time.Minute

// maxStepsPerRound bounds one round, so a flood of pending records never
// keeps the loop from noticing Close.
const maxStepsPerRound = 1000

func randomOwner() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// claimed is an outbox record this gate holds the lease on.
type claimed struct {
	seq       int64
	sr        *feedback.StoredRecord
	hadIntent bool // an earlier claim may have created the issue already
}

// SyncPending tells the sink every pending occurrence, one record at a
// time, until none is left or the sink or database is out of reach. A
// record the sink refuses otherwise (a bad request) keeps its lease, which
// defers it for leaseTime while the others go on. Each record is claimed with
// FOR UPDATE SKIP LOCKED and a lease, so across all gates exactly one
// talks to the sink about a record at a time; the claim also records the
// intent to create an issue, committed before the sink is called.
func (s *Store) SyncPending(ctx context.Context) error {
	if s.sink == nil {
		return nil
	}
	var errs []error
	for range maxStepsPerRound {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		c, ok, err := s.claim(ctx)
		if err != nil || !ok {
			return errors.Join(append(errs, err)...)
		}
		if err := s.syncClaimed(ctx, c); err != nil {
			errs = append(errs, err)
			if errors.Is(err, feedback.ErrSinkUnavailable) || errors.Is(err, feedback.ErrUnavailable) {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// claim leases the oldest pending record nobody holds (or whose holder's
// lease ran out) and marks a create intent when it has no issue yet.
func (s *Store) claim(ctx context.Context) (claimed, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var c claimed
	var doc []byte
	err := s.pool.QueryRow(ctx, `WITH c AS (
			SELECT seq, create_intent FROM wikigate_feedback_records
			WHERE sync_pending AND (sync_lease_until IS NULL OR sync_lease_until < now())
			ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
		UPDATE wikigate_feedback_records r SET sync_owner = $1, sync_lease_until = now() + $2::interval,
			create_intent = r.create_intent OR NOT (r.doc ? 'issue')
		FROM c WHERE r.seq = c.seq RETURNING r.seq, r.doc, c.create_intent`, s.owner, leaseTime.String()).Scan(&c.seq, &doc, &c.hadIntent)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, unavailable(err)
	}
	c.sr, err = decode(doc)
	return c, err == nil, err
}

// syncClaimed makes the record's next sink call and stores the answer,
// which releases the lease. The call runs detached from ctx (see
// feedback.Sink): cutting it off could lose an issue GitHub created.
func (s *Store) syncClaimed(ctx context.Context, c claimed) error {
	step, ok := c.sr.NextSyncStep()
	if !ok {
		return s.release(ctx, c, nil)
	}
	ref, err := s.callSink(context.WithoutCancel(ctx), c, step)
	if err != nil {
		if errors.Is(err, feedback.ErrSinkUnavailable) {
			_ = s.release(ctx, c, nil) // retried by the next round, on any gate
		}
		return fmt.Errorf("syncing feedback record %s: %w", c.sr.ID, err)
	}
	return s.release(ctx, c, &applied{step: step, ref: ref})
}

// callSink creates or comments; before creating again after an
// interrupted create, it asks the sink whether the issue exists.
func (s *Store) callSink(ctx context.Context, c claimed, step feedback.SyncStep) (feedback.IssueRef, error) {
	if step.Create() && c.hadIntent {
		if f, ok := s.sink.(feedback.IssueFinder); ok {
			ref, found, err := f.FindIssue(ctx, step.Snapshot())
			if err != nil || found {
				return ref, err
			}
		}
	}
	return s.sink.Sync(ctx, step.Snapshot(), step.Occurrence())
}

// applied is a sink answer to store.
type applied struct {
	step feedback.SyncStep
	ref  feedback.IssueRef
}

// release stores a, if any, and gives the lease up, in one transaction
// that first checks the lease is still this gate's.
func (s *Store) release(ctx context.Context, c claimed, a *applied) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var doc []byte
		err := tx.QueryRow(ctx, `SELECT doc FROM wikigate_feedback_records WHERE seq = $1 AND sync_owner = $2 FOR UPDATE`, c.seq, s.owner).Scan(&doc)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // the lease ran out and another gate took over
		}
		if err != nil {
			return err
		}
		if a == nil {
			_, err = tx.Exec(ctx, `UPDATE wikigate_feedback_records SET sync_owner = NULL, sync_lease_until = NULL WHERE seq = $1`, c.seq)
			return err
		}
		return s.applyTx(ctx, tx, c.seq, doc, a)
	})
	return unavailable(err)
}

// applyTx folds the sink's answer into the current record (occurrences may
// have merged meanwhile) and inserts the split-off record, if any.
func (s *Store) applyTx(ctx context.Context, tx pgx.Tx, seq int64, doc []byte, a *applied) error {
	sr, err := decode(doc)
	if err != nil {
		return err
	}
	var newSeq int64
	n, err := sr.ApplySync(a.step, a.ref, func() (string, error) {
		var id string
		var err error
		newSeq, id, err = nextID(ctx, tx, sr.Tool)
		return id, err
	})
	if err != nil {
		return err
	}
	if err := saveRecord(ctx, tx, seq, sr); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE wikigate_feedback_records SET sync_owner = NULL, sync_lease_until = NULL,
		create_intent = create_intent AND NOT (doc ? 'issue') WHERE seq = $1`, seq); err != nil {
		return err
	}
	if n == nil {
		return nil
	}
	return insertSplit(ctx, tx, newSeq, n)
}

func insertSplit(ctx context.Context, tx pgx.Tx, seq int64, n *feedback.StoredRecord) error {
	doc, err := json.Marshal(n)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO wikigate_feedback_records (seq, id, tool, dedupe_key, status, sync_pending, doc)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, seq, n.ID, n.Tool, n.DedupeKey, n.Status, n.SyncPending, doc)
	return err
}

// startSyncLoop runs the outbox in the background when there is a sink.
func (s *Store) startSyncLoop(every time.Duration) {
	if s.sink != nil {
		s.sync = feedback.StartSyncLoop(s.SyncPending, every, s.log)
	}
}
