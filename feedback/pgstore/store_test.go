package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/feedback"
)

// 40 reports of one gap with distinct idempotency keys, spread over two
// stores (two gates), become one record with count 40 and every caller.
func TestConcurrentReportsMergeAcrossStores(t *testing.T) {
	_, a, b := twoGates(t, feedback.Options{})
	stores := []*Store{a, b}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			_, err := stores[i%2].Submit(context.Background(), sub("how do I rotate keys?", fmt.Sprint("agent-", i), fmt.Sprint("key-", i)), nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	recs, err := a.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Count != 40 || len(recs[0].Callers) != 40 {
		t.Fatalf("want one record with count 40 and 40 callers, got %d records: %+v", len(recs), recs)
	}
	for _, c := range recs[0].Callers {
		if c.Type != "agent" || c.At.IsZero() {
			t.Fatalf("caller without type or time: %+v", c)
		}
	}
}

// The same idempotency key sent to two stores at once: one occurrence,
// and both callers get the same bytes although each store rendered its
// own (different) response.
func TestSameKeyTwoStoresAtOnce(t *testing.T) {
	_, a, b := twoGates(t, feedback.Options{})
	for round := range 5 {
		key := fmt.Sprint("retry-", round)
		var ra, rb feedback.Result
		var ea, eb error
		var wg sync.WaitGroup
		wg.Go(func() {
			ra, ea = a.Submit(context.Background(), sub(fmt.Sprint("q", round), "agent-1", key), stamped())
		})
		wg.Go(func() {
			rb, eb = b.Submit(context.Background(), sub(fmt.Sprint("q", round), "agent-1", key), stamped())
		})
		wg.Wait()
		if ea != nil || eb != nil {
			t.Fatal(ea, eb)
		}
		if !bytes.Equal(ra.Response, rb.Response) || ra.Replayed == rb.Replayed {
			t.Fatalf("round %d: responses differ or both/neither replayed:\n%s\n%s", round, ra.Response, rb.Response)
		}
		if rec, _ := a.Get(context.Background(), ra.Record.ID); rec.Count != 1 {
			t.Fatalf("round %d: count %d, want 1", round, rec.Count)
		}
	}
}

// A key reused with a different body is refused and changes nothing; a
// key older than the TTL is forgotten and the retry counts again.
func TestIdempotencyConflictAndExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	_, a, b := twoGates(t, feedback.Options{Now: clock})
	first, err := a.Submit(context.Background(), sub("q", "agent-1", "k"), stamped())
	if err != nil {
		t.Fatal(err)
	}
	other := sub("q", "agent-1", "k")
	other.BodyHash = "a different body"
	if _, err := b.Submit(context.Background(), other, nil); !errors.Is(err, feedback.ErrIdempotencyConflict) {
		t.Fatalf("different body: %v, want ErrIdempotencyConflict", err)
	}
	again, err := b.Submit(context.Background(), sub("q", "agent-1", "k"), stamped())
	if err != nil || !again.Replayed || !bytes.Equal(again.Response, first.Response) {
		t.Fatalf("replay within 24h: %v %s", err, again.Response)
	}
	mu.Lock()
	now = now.Add(feedback.DefaultIdempotencyTTL + time.Second)
	mu.Unlock()
	later, err := b.Submit(context.Background(), sub("q", "agent-1", "k"), nil)
	if err != nil || later.Replayed || later.Record.Count != 2 {
		t.Fatalf("after expiry: %v replayed=%v count=%d", err, later.Replayed, later.Record.Count)
	}
}

// A closed record stays closed: the next report opens a new one.
func TestClosedRecordOpensNew(t *testing.T) {
	_, a, _ := twoGates(t, feedback.Options{})
	r1, err := a.Submit(context.Background(), sub("q", "agent-1", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CloseRecord(context.Background(), r1.Record.ID); err != nil {
		t.Fatal(err)
	}
	r2, err := a.Submit(context.Background(), sub("q", "agent-2", ""), nil)
	if err != nil || !r2.Created || r2.Record.ID == r1.Record.ID {
		t.Fatalf("after close: %v %+v", err, r2)
	}
}

// PostgreSQL stopped: Submit fails fast with ErrUnavailable and keeps
// nothing; started again: the same store works, no reopen.
func TestOutageAndRecovery(t *testing.T) {
	pg, a, _ := twoGates(t, feedback.Options{})
	if _, err := a.Submit(context.Background(), sub("q", "agent-1", ""), nil); err != nil {
		t.Fatal(err)
	}
	pg.Stop()
	start := time.Now()
	_, err := a.Submit(context.Background(), sub("q", "agent-2", "k2"), nil)
	if !errors.Is(err, feedback.ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Fatalf("while down: %v after %s, want ErrUnavailable quickly", err, time.Since(start))
	}
	if a.Health(context.Background()) == nil {
		t.Fatal("Health is nil while PostgreSQL is down")
	}
	pg.Start()
	res, err := a.Submit(context.Background(), sub("q", "agent-2", "k2"), nil)
	if err != nil || res.Record.Count != 2 || res.Replayed {
		t.Fatalf("after restart: %v %+v", err, res)
	}
}
