package feedback

import (
	"context"
	"errors"
	"time"

	"github.com/wikigate/wikigate/dedupe"
	"github.com/wikigate/wikigate/protocol"
)

// Submitter is what the gateway needs from a feedback store. The bbolt
// Store (one machine) and pgstore.Store (PostgreSQL, any number of gates)
// both implement it with the same semantics, so the gateway does not know
// which one the Caddyfile chose.
type Submitter interface {
	Submit(ctx context.Context, sub Submission, render func(Result) ([]byte, error)) (Result, error)
}

// ErrUnavailable wraps a shared store's failure to answer (PostgreSQL down
// or unreachable): nothing was committed, the caller gets 503
// feedback_store_unavailable (never 500) and may retry with the same
// idempotency key.
var ErrUnavailable = errors.New("feedback store unavailable")

// IssueFinder is a Sink that can find the issue it created for a record by
// the marker in the issue's body. A store that recorded its intent to
// create an issue, and then lost the answer (a crash, a timeout), asks it
// before creating again, so one record never gets two issues.
type IssueFinder interface {
	FindIssue(ctx context.Context, rec Record) (IssueRef, bool, error)
}

// StoredRecord is a record with its outbox state, for stores in other
// packages (pgstore) that keep it as one JSON document: every store then
// merges, syncs and splits records with the same code.
type StoredRecord = storedRecord

// PrepareSubmission checks sub and fills in what Submit defaults (the
// caller's time, in UTC, and the render function).
func PrepareSubmission(sub Submission, now time.Time, render func(Result) ([]byte, error)) (Submission, func(Result) ([]byte, error), error) {
	if err := checkSubmission(sub); err != nil {
		return sub, nil, err
	}
	if sub.Caller.At.IsZero() {
		sub.Caller.At = now
	}
	sub.Caller.At = sub.Caller.At.UTC()
	if render == nil {
		render = renderRecordJSON
	}
	return sub, render, nil
}

// IdempotencyKey is the store key of sub's idempotency key, scoped to its
// caller and tool; nil when sub has none.
func IdempotencyKey(sub Submission) []byte {
	if sub.IdempotencyKey == "" {
		return nil
	}
	return idemKey(sub)
}

// DedupeKey is the key sub merges under.
func DedupeKey(sub Submission) string {
	return dedupe.Key(sub.EventType, sub.Question, sub.Scope, sub.CitationPaths)
}

// NewStoredRecord starts the open record id for sub, with no occurrence yet.
func NewStoredRecord(sub Submission, dedupeKey, id string) *StoredRecord {
	return newRecordWithID(sub, dedupeKey, id)
}

// Merge folds sub into sr as one occurrence; withSink queues it for the
// sink too.
func (sr *storedRecord) Merge(sub Submission, withSink bool) {
	caller := sub.Caller
	caller.Rating = sub.Rating
	sr.addOccurrence(caller, sub.Comment)
	if sr.Title == "" {
		sr.Title = sub.Title
	}
	if withSink && tellsTheSink(sub) {
		occ := occurrence{Caller: caller, Comment: sub.Comment, Count: sr.Count}
		sr.Pending = keepLast(append(sr.Pending, occ), maxCallers)
	}
	sr.SyncPending = len(sr.Pending) > 0
}

// tellsTheSink: every occurrence reaches the sink but a bare "helpful"
// (no comment), which is counted in the record's ratings and shown with
// its next issue text, and never opens or comments on an issue by itself:
// the docs team hears of problems, not of every thumbs-up.
func tellsTheSink(sub Submission) bool {
	return sub.Rating != protocol.RatingHelpful || sub.Comment != ""
}

// Public is the copy of the record handed to callers.
func (sr *storedRecord) Public() Record { return sr.publicRecord() }

// SyncStep is the next sink call a stored record needs.
type SyncStep = syncStep

// Create says the step creates the issue; Snapshot is the record to send
// and Occurrence who reported the occurrence it is about.
func (s SyncStep) Create() bool       { return s.create }
func (s SyncStep) Snapshot() Record   { return s.snapshot }
func (s SyncStep) Occurrence() Caller { return s.occ.Caller }

// NextSyncStep is the first pending sink call, if any.
func (sr *storedRecord) NextSyncStep() (SyncStep, bool) {
	if len(sr.Pending) == 0 {
		return SyncStep{}, false
	}
	step := syncStep{snapshot: sr.publicRecord(), occ: sr.Pending[0], create: sr.Issue == nil}
	if !step.create {
		step.snapshot.Count = step.occ.Count
		step.snapshot.LastSeenAt = step.occ.Caller.At
	}
	return step, true
}

// ApplySync stores the sink's answer to step in sr. When the issue turned
// out closed upstream, sr closes and the occurrences after what the issue
// saw move to a new open record numbered newID(), which is returned.
func (sr *storedRecord) ApplySync(step SyncStep, ref IssueRef, newID func() (string, error)) (*StoredRecord, error) {
	switch {
	case step.create:
		sr.Issue = &ref
		sr.markSynced(step.snapshot.Count)
	case ref.State == StatusClosed:
		return sr.closeUpstream(ref, newID)
	default:
		sr.Issue = &ref
		sr.markSynced(step.occ.Count)
	}
	sr.SyncPending = len(sr.Pending) > 0
	return nil, nil
}

// closeUpstream is splitClosed without the bbolt indexes.
func (sr *storedRecord) closeUpstream(ref IssueRef, newID func() (string, error)) (*StoredRecord, error) {
	sr.Issue = &ref
	pending := sr.Pending
	sr.Pending, sr.SyncPending = nil, false
	wasOpen := sr.Status == StatusOpen
	moved := sr.Count - sr.SyncedCount
	sr.Status = StatusClosed
	if !wasOpen || moved <= 0 {
		return nil, nil
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	n := sr.splitTail(id, moved, pending)
	n.SyncPending = len(n.Pending) > 0
	return n, nil
}
