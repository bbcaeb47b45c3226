package feedback

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestIdempotencyKey(t *testing.T) {
	tests := []struct {
		name         string
		retry        func(*Submission)
		wantReplay   bool
		wantConflict bool
		wantCount    int
	}{
		{"same key same body replays", func(*Submission) {}, true, false, 1},
		{"same key other body conflicts", func(s *Submission) { s.BodyHash = "body-2"; s.Comment = "changed" }, false, true, 1},
		{"same key other caller is its own key", func(s *Submission) { s.Caller.ID = "agent-b" }, false, false, 2},
		{"same key other tool is its own key", func(s *Submission) { s.Tool = ToolImprovementTask }, false, false, 1},
		{"other key same body counts again", func(s *Submission) { s.IdempotencyKey = "retry-2" }, false, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openAt(t, storePath(t), Options{})
			sub := submission("agent-a")
			sub.IdempotencyKey = "retry-1"
			first := mustSubmit(t, s, sub)
			tc.retry(&sub)

			res, err := s.Submit(t.Context(), sub, renderCounting())
			if tc.wantConflict {
				if !errors.Is(err, ErrIdempotencyConflict) {
					t.Fatalf("err = %v, want ErrIdempotencyConflict", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if res.Replayed != tc.wantReplay {
				t.Fatalf("Replayed = %v, want %v", res.Replayed, tc.wantReplay)
			}
			if tc.wantReplay && (!bytes.Equal(res.Response, first.Response) || !res.Created) {
				t.Fatalf("replay = %s (created %v), want %s", res.Response, res.Created, first.Response)
			}
			if rec := mustGet(t, s, first.Record.ID); rec.Count != tc.wantCount {
				t.Fatalf("count = %d, want %d", rec.Count, tc.wantCount)
			}
		})
	}
}

func TestConcurrentIdenticalSubmissionsMakeOneRecord(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	const n = 20
	var wg sync.WaitGroup
	results := make([]Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			sub := submission(agent(i))
			sub.IdempotencyKey = fmt.Sprintf("key-%d", i)
			results[i], errs[i] = s.Submit(t.Context(), sub, nil)
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("submission %d: %v", i, errs[i])
		}
		if results[i].Created {
			created++
		}
	}
	all, err := s.List("")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Count != n || len(all[0].Callers) != n || created != 1 {
		t.Fatalf("want one record with count %d, got %d records (first %+v), %d created", n, len(all), all[0], created)
	}
}

func TestIdempotencyEntriesExpire(t *testing.T) {
	c := newClock()
	s := openAt(t, storePath(t), Options{Now: c.Now, IdempotencyTTL: 24 * time.Hour})
	sub := submission("agent-a")
	sub.IdempotencyKey = "retry-1"
	first := mustSubmit(t, s, sub)

	c.Advance(24*time.Hour - time.Second)
	if res := mustSubmit(t, s, sub); !res.Replayed {
		t.Fatal("a retry within the TTL was not replayed")
	}

	c.Advance(time.Second)
	changed := sub
	changed.BodyHash = "body-2"
	res := mustSubmit(t, s, changed)
	if res.Replayed || res.Record.ID != first.Record.ID || res.Record.Count != 2 {
		t.Fatalf("after expiry the key should be free: %+v", res)
	}
	if n := idemEntries(t, s); n != 1 {
		t.Fatalf("want only the new entry, got %d", n)
	}

	// Entries nobody asks for again are purged by later writes.
	c.Advance(25 * time.Hour)
	mustSubmit(t, s, submission("agent-b"))
	if n := idemEntries(t, s); n != 0 {
		t.Fatalf("expired entries left after a later write: %d", n)
	}
}

func idemEntries(t *testing.T, s *Store) int {
	t.Helper()
	var n, m int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketIdem).Stats().KeyN
		m = tx.Bucket(bucketIdemExpiry).Stats().KeyN
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != m {
		t.Fatalf("%d idempotency entries but %d expiry index entries", n, m)
	}
	return n
}
