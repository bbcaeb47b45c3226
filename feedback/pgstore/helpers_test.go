package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/protocol"
)

// open opens a store on pg that the test closes.
func open(t *testing.T, pg *testservers.Postgres, o feedback.Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{DSN: pg.DSN(), Timeout: 2 * time.Second, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// twoGates opens two stores on one fresh database at the same moment, as
// two gates starting together would (the migrations race).
func twoGates(t *testing.T, o feedback.Options) (*testservers.Postgres, *Store, *Store) {
	t.Helper()
	pg := testservers.StartPostgres(t)
	var a, b *Store
	var ea, eb error
	var wg sync.WaitGroup
	wg.Go(func() { a, ea = Open(context.Background(), Config{DSN: pg.DSN(), Options: o}) })
	wg.Go(func() { b, eb = Open(context.Background(), Config{DSN: pg.DSN(), Options: o}) })
	wg.Wait()
	if ea != nil || eb != nil {
		t.Fatalf("opening two stores together: %v / %v", ea, eb)
	}
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return pg, a, b
}

func sub(question, caller, idemKey string) feedback.Submission {
	return feedback.Submission{
		Tool: feedback.ToolFeedback, EventType: "missing_docs", Question: question,
		Scope:          protocol.Scope{Projects: []string{"alpha"}},
		Caller:         feedback.Caller{Type: "agent", ID: caller},
		IdempotencyKey: idemKey, BodyHash: "hash-of-" + question,
	}
}

// stamped renders a response that differs on every call, so a replay is
// told apart from a second render.
func stamped() func(feedback.Result) ([]byte, error) {
	var mu sync.Mutex
	n := 0
	return func(r feedback.Result) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Appendf(nil, `{"id":%q,"count":%d,"created":%t,"render":%d,"at":%q}`, r.Record.ID, r.Record.Count, r.Created, n, time.Now().Format(time.RFC3339Nano)), nil
	}
}

// fakeSink is a GitHub stand-in: it counts creates and comments, can be
// told to lose the answer to a create, and finds issues by record ID.
type fakeSink struct {
	mu         sync.Mutex
	issues     map[string]feedback.IssueRef // by record ID
	creates    int
	comments   int
	inFlight   int
	maxFlight  int
	seenCount  int // the highest count the sink was told
	loseCreate bool
	delay      time.Duration
}

func (f *fakeSink) Sync(_ context.Context, rec feedback.Record, _ feedback.Caller) (feedback.IssueRef, error) {
	f.mu.Lock()
	f.inFlight++
	f.maxFlight = max(f.maxFlight, f.inFlight)
	f.mu.Unlock()
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
	f.seenCount = max(f.seenCount, rec.Count)
	if rec.Issue != nil {
		f.comments++
		return *rec.Issue, nil
	}
	f.creates++
	ref := feedback.IssueRef{Number: f.creates, URL: fmt.Sprintf("https://github.test/issues/%d", f.creates), State: feedback.StatusOpen}
	f.issues[rec.ID] = ref
	if f.loseCreate {
		f.loseCreate = false
		return feedback.IssueRef{}, fmt.Errorf("%w: timeout after GitHub created the issue", feedback.ErrSinkUnavailable)
	}
	return ref, nil
}

func (f *fakeSink) FindIssue(_ context.Context, rec feedback.Record) (feedback.IssueRef, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ref, ok := f.issues[rec.ID]
	return ref, ok, nil
}

func (f *fakeSink) counts() (creates, comments, maxFlight int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates, f.comments, f.maxFlight
}

func (f *fakeSink) seen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seenCount
}
