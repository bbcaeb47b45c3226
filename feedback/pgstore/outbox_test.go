package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/feedback"
)

// Two stores (two gates) draining one outbox at once: one issue for the
// record, never two sink calls about it at once, and the issue ends up
// told all 6 occurrences (repeats merged before the create need no
// comment of their own).
func TestOutboxOneSyncAtATime(t *testing.T) {
	sink := &fakeSink{issues: map[string]feedback.IssueRef{}, delay: 20 * time.Millisecond}
	o := feedback.Options{Sink: sink, SyncInterval: time.Hour}
	_, a, b := twoGates(t, o)
	for i := range 6 {
		if _, err := []*Store{a, b}[i%2].Submit(context.Background(), sub("q", "agent", ""), nil); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, a, b)
	creates, comments, maxFlight := sink.counts()
	if creates != 1 || comments > 5 || maxFlight != 1 || sink.seen() != 6 {
		t.Fatalf("creates %d comments %d concurrent %d count told %d; want 1, ≤5, 1, 6", creates, comments, maxFlight, sink.seen())
	}
	recs, _ := a.List(context.Background(), "")
	if len(recs) != 1 || recs[0].Issue == nil || recs[0].SyncPending {
		t.Fatalf("record after sync: %+v", recs)
	}
}

// GitHub created the issue but the answer was lost: the intent recorded
// before the call makes the next try look the issue up instead of
// creating a second one.
func TestLostCreateAnswerFindsIssue(t *testing.T) {
	sink := &fakeSink{issues: map[string]feedback.IssueRef{}, loseCreate: true}
	_, a, b := twoGates(t, feedback.Options{Sink: sink, SyncInterval: time.Hour})
	if _, err := a.Submit(context.Background(), sub("q", "agent", ""), nil); err != nil {
		t.Fatal(err)
	}
	drain(t, a, b)
	creates, _, _ := sink.counts()
	recs, _ := a.List(context.Background(), "")
	if creates != 1 || len(recs) != 1 || recs[0].Issue == nil || recs[0].Issue.Number != 1 {
		t.Fatalf("creates %d, records %+v; want one issue, stored", creates, recs)
	}
}

// drain runs both stores' outboxes concurrently until nothing is pending,
// for at most 10 seconds: a background round holding a record's lease
// makes the test's rounds skip it until it is done.
func drain(t *testing.T, a, b *Store) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var wg sync.WaitGroup
		wg.Go(func() { _ = a.SyncPending(context.Background()) })
		wg.Go(func() { _ = b.SyncPending(context.Background()) })
		wg.Wait()
		recs, err := a.List(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		pending := false
		for _, r := range recs {
			pending = pending || r.SyncPending
		}
		if !pending {
			return
		}
	}
	t.Fatal("outbox not drained within 10s")
}

// refusingSink refuses one record's create as a bad request (not an
// outage) and creates every other record's issue.
type refusingSink struct {
	fakeSink
	refuse string // question refused
}

func (r *refusingSink) Sync(ctx context.Context, rec feedback.Record, c feedback.Caller) (feedback.IssueRef, error) {
	if rec.Question == r.refuse {
		return feedback.IssueRef{}, errors.New("github: status 422: Validation Failed")
	}
	return r.fakeSink.Sync(ctx, rec, c)
}

// A record GitHub refuses does not hold up the records after it.
func TestRefusedRecordDoesNotBlockOthers(t *testing.T) {
	sink := &refusingSink{fakeSink: fakeSink{issues: map[string]feedback.IssueRef{}}, refuse: "refused"}
	_, a, _ := twoGates(t, feedback.Options{Sink: sink, SyncInterval: time.Hour})
	for _, q := range []string{"refused", "fine"} {
		if _, err := a.Submit(context.Background(), sub(q, "agent", ""), nil); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_ = a.SyncPending(context.Background())
		recs, err := a.List(context.Background(), "")
		if err != nil || len(recs) != 2 {
			t.Fatalf("records: %v %+v", err, recs)
		}
		if recs[1].Issue != nil {
			if creates, _, _ := sink.counts(); creates != 1 || recs[0].Issue != nil {
				t.Fatalf("creates %d, refused record's issue %+v", creates, recs[0].Issue)
			}
			return
		}
	}
	t.Fatal("the record after a refused one never got its issue")
}
