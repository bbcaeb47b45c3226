package feedback

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/wikigate/wikigate/dedupe"
)

// Submit records one occurrence, atomically in one bbolt read-write
// transaction (docs/protocol.md, Results: FeedbackResult):
//
//  1. With an IdempotencyKey already used by the same caller and tool, it
//     replays the stored response (same BodyHash) or fails with
//     ErrIdempotencyConflict (different BodyHash); nothing else changes.
//  2. Otherwise the occurrence merges into the open record of sub.Tool with
//     the same dedupe key (Count, LastSeenAt, caller, comment), or opens a
//     new record.
//  3. render turns the Result into the caller's response inside the
//     transaction; those bytes are stored under the idempotency key, so a
//     retry gets them byte for byte. A render error aborts everything.
//
// With a Sink, the occurrence is committed as pending and Submit returns
// without waiting for the sink: it only wakes the background sync loop,
// which tells the sink later (a slow or down GitHub never slows or fails a
// submission). So the returned Result is what was committed: a new record
// has no IssueRef yet and SyncPending is set. If the issue turns out closed
// upstream, the loop later moves the occurrence to a new open record
// (FindOpen). render may be nil: the response is then the record's JSON.
func (s *Store) Submit(ctx context.Context, sub Submission, render func(Result) ([]byte, error)) (Result, error) {
	if err := checkSubmission(sub); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if sub.Caller.At.IsZero() {
		sub.Caller.At = s.now()
	}
	sub.Caller.At = sub.Caller.At.UTC()
	if render == nil {
		render = renderRecordJSON
	}
	var res Result
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		res, err = s.submitTx(tx, sub, render)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	if !res.Replayed && s.sink != nil {
		s.sync.Kick()
	}
	return res, nil
}

func checkSubmission(sub Submission) error {
	switch {
	case !validTool(sub.Tool):
		return fmt.Errorf("%w: unknown tool %q", ErrInvalidSubmission, sub.Tool)
	case sub.EventType == "":
		return fmt.Errorf("%w: event type is empty", ErrInvalidSubmission)
	case sub.Caller.Type == "" || sub.Caller.ID == "":
		return fmt.Errorf("%w: caller type and id are required", ErrInvalidSubmission)
	}
	return nil
}

func renderRecordJSON(r Result) ([]byte, error) { return json.Marshal(r.Record) }

func (s *Store) submitTx(tx *bolt.Tx, sub Submission, render func(Result) ([]byte, error)) (Result, error) {
	now := s.now()
	if err := purgeExpiredIdem(tx, now); err != nil {
		return Result{}, fmt.Errorf("purging idempotency entries: %w", err)
	}
	var ikey []byte
	if sub.IdempotencyKey != "" {
		ikey = idemKey(sub)
		e, err := lookupIdem(tx, ikey, now)
		if err != nil {
			return Result{}, err
		}
		if e != nil {
			return replay(tx, e, sub.BodyHash)
		}
	}
	sr, created, err := s.upsert(tx, sub)
	if err != nil {
		return Result{}, err
	}
	res := Result{Record: sr.publicRecord(), Created: created}
	if res.Response, err = render(res); err != nil {
		return Result{}, fmt.Errorf("rendering feedback response: %w", err)
	}
	if ikey != nil {
		e := &idemEntry{BodyHash: sub.BodyHash, Response: res.Response, RecordID: sr.ID, Created: created, ExpiresAt: now.Add(s.idemTTL)}
		if err := saveIdem(tx, ikey, e); err != nil {
			return Result{}, fmt.Errorf("storing idempotency entry: %w", err)
		}
	}
	return res, nil
}

// replay answers a retry with the first call's response, or refuses a
// different body under the same key.
func replay(tx *bolt.Tx, e *idemEntry, bodyHash string) (Result, error) {
	if e.BodyHash != bodyHash {
		return Result{}, ErrIdempotencyConflict
	}
	sr, err := loadRecord(tx, e.RecordID)
	if err != nil {
		return Result{}, err
	}
	return Result{Record: sr.publicRecord(), Created: e.Created, Replayed: true, Response: e.Response}, nil
}

// upsert merges sub into the open record of its dedupe key, or creates one.
func (s *Store) upsert(tx *bolt.Tx, sub Submission) (*storedRecord, bool, error) {
	key := dedupe.Key(sub.EventType, sub.Question, sub.Scope, sub.CitationPaths)
	sr, err := findOpenTx(tx, sub.Tool, key)
	if err != nil {
		return nil, false, err
	}
	created := sr == nil
	if created {
		if sr, err = newRecord(tx, sub, key); err != nil {
			return nil, false, err
		}
	}
	sr.Merge(sub, s.sink != nil)
	if err := saveRecord(tx, sr); err != nil {
		return nil, false, err
	}
	if created {
		err = tx.Bucket(bucketOpen).Put(openKey(sr.Tool, sr.DedupeKey), []byte(sr.ID))
	}
	return sr, created, err
}

func findOpenTx(tx *bolt.Tx, tool, key string) (*storedRecord, error) {
	id := tx.Bucket(bucketOpen).Get(openKey(tool, key))
	if id == nil {
		return nil, nil
	}
	return loadRecord(tx, string(id))
}

// newRecord starts an open record with no occurrences yet. The question is
// kept in the record (it is the feedback) but never in a key.
func newRecord(tx *bolt.Tx, sub Submission, key string) (*storedRecord, error) {
	id, err := nextID(tx, sub.Tool)
	if err != nil {
		return nil, err
	}
	return newRecordWithID(sub, key, id), nil
}

// newRecordWithID is newRecord once the store has allocated the ID.
func newRecordWithID(sub Submission, key, id string) *storedRecord {
	return &storedRecord{Record: Record{
		ID:            id,
		Tool:          sub.Tool,
		EventType:     sub.EventType,
		DedupeKey:     key,
		Question:      sub.Question,
		Scope:         sub.Scope.Clone(),
		CitationPaths: append([]string{}, sub.CitationPaths...),
		Comments:      []string{},
		Callers:       []Caller{},
		Status:        StatusOpen,
	}}
}

// nextID numbers records with one store-wide sequence, prefixed by tool so
// an ID says which record space it belongs to. Fixed width keeps string
// order equal to creation order.
func nextID(tx *bolt.Tx, tool string) (string, error) {
	seq, err := tx.Bucket(bucketRecords).NextSequence()
	if err != nil {
		return "", fmt.Errorf("allocating feedback record id: %w", err)
	}
	return FormatID(tool, seq), nil
}

// FormatID is the ID of record number seq of tool: every store numbers
// records the same way, so IDs look alike whichever store is configured.
func FormatID(tool string, seq uint64) string {
	prefix := "fb"
	if tool == ToolImprovementTask {
		prefix = "task"
	}
	return fmt.Sprintf("%s-%010d", prefix, seq)
}

// compareIDs orders IDs by their sequence number, across prefixes.
func compareIDs(a, b string) int {
	return strings.Compare(a[strings.LastIndexByte(a, '-')+1:], b[strings.LastIndexByte(b, '-')+1:])
}
