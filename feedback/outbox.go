package feedback

import (
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sink mirrors records somewhere people triage them (GitHub Issues).
//
// Sync is told about one occurrence of rec. When rec.Issue is nil it
// creates the issue for rec and returns it. Otherwise it checks the issue:
// if it is closed it returns the ref with State "closed" and does nothing
// else (the store then opens a new record, which gets a new issue);
// if open it adds a comment about occurrence and returns the ref. rec.Count
// and rec.LastSeenAt are as of that occurrence.
//
// Sync must bound its own duration: the store never cancels a call in
// flight, because a create cut off after GitHub made the issue would leave
// an issue the store never learns about, and the next try would make a
// second one.
type Sink interface {
	Sync(ctx context.Context, rec Record, occurrence Caller) (IssueRef, error)
}

// ErrSinkUnavailable marks sink errors worth waiting out (network, 5xx,
// rate limits): SyncPending stops its round on one instead of timing out
// once per pending record.
var ErrSinkUnavailable = errors.New("feedback sink unavailable")

// syncStep is one sink call to make: create the issue for the record as it
// is, or comment on one occurrence.
type syncStep struct {
	snapshot Record
	occ      occurrence
	create   bool
}

// SyncPending tells the sink every occurrence it has not seen yet, record
// by record (the outbox), and waits for it. The store's sync loop already
// calls it after Open, after each Submit and every SyncInterval; call it
// directly only to catch up on demand. Cancelling ctx stops it between sink
// calls, never inside one. Records that fail stay pending; the errors are
// returned.
func (s *Store) SyncPending(ctx context.Context) error {
	if s.sink == nil {
		return nil
	}
	ids, err := s.pendingIDs()
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		err := s.syncRecord(ctx, id)
		if err != nil {
			errs = append(errs, err)
		}
		if errors.Is(err, ErrSinkUnavailable) {
			break
		}
	}
	return errors.Join(errs...)
}

func (s *Store) pendingIDs() ([]string, error) {
	var ids []string
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketOutbox).ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	return ids, err
}

// syncRecord drains the pending occurrences of id. The mutex makes the
// sink conversation single-file: two concurrent first syncs of one record
// would otherwise both create an issue. Each step commits before the next
// network call, so a crash repeats at most one call; the call itself runs
// detached from ctx (see Sink), which is checked between steps.
func (s *Store) syncRecord(ctx context.Context, id string) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	for id != "" {
		if err := ctx.Err(); err != nil {
			return err
		}
		step, ok, err := s.nextSyncStep(id)
		if err != nil || !ok {
			return err
		}
		ref, err := s.sink.Sync(context.WithoutCancel(ctx), step.snapshot, step.occ.Caller)
		if err != nil {
			return fmt.Errorf("syncing feedback record %s: %w", id, err)
		}
		next, err := s.applySync(id, step, ref)
		if err != nil {
			return fmt.Errorf("storing sync of feedback record %s: %w", id, err)
		}
		id = next
	}
	return nil
}

func (s *Store) nextSyncStep(id string) (syncStep, bool, error) {
	var step syncStep
	var ok bool
	err := s.db.View(func(tx *bolt.Tx) error {
		sr, err := loadRecord(tx, id)
		if err != nil || len(sr.Pending) == 0 {
			return err
		}
		ok = true
		step = syncStep{snapshot: sr.publicRecord(), occ: sr.Pending[0], create: sr.Issue == nil}
		if !step.create {
			step.snapshot.Count = step.occ.Count
			step.snapshot.LastSeenAt = step.occ.Caller.At
		}
		return nil
	})
	return step, ok, err
}

// applySync stores what the sink answered and returns the record to sync
// next: the same one while occurrences remain, the new one after a split.
func (s *Store) applySync(id string, step syncStep, ref IssueRef) (string, error) {
	next := id
	err := s.db.Update(func(tx *bolt.Tx) error {
		sr, err := loadRecord(tx, id)
		if err != nil {
			return err
		}
		switch {
		case step.create:
			sr.Issue = &ref
			sr.markSynced(step.snapshot.Count)
		case ref.State == StatusClosed:
			next, err = splitClosed(tx, sr, ref)
			return err
		default:
			sr.Issue = &ref
			sr.markSynced(step.occ.Count)
		}
		return saveRecord(tx, sr)
	})
	return next, err
}

// markSynced records that the sink has seen the record up to count.
func (sr *storedRecord) markSynced(count int) {
	sr.SyncedCount = count
	kept := sr.Pending[:0]
	for _, o := range sr.Pending {
		if o.Count > count {
			kept = append(kept, o)
		}
	}
	sr.Pending = kept
}

// startSyncLoop starts the background sync loop whenever there is a sink:
// submissions only commit locally and kick it, so it is what reaches the
// sink. Close stops it and waits for it.
func (s *Store) startSyncLoop(every time.Duration) {
	if s.sink != nil {
		s.sync = StartSyncLoop(s.SyncPending, every, s.log)
	}
}
