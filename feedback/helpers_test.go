package feedback

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var kgentScope = protocol.Scope{
	Projects: []string{"kunora-kgent"},
	Paths:    []string{"publish/system/components/kunora-kgent"},
	Version:  "main",
}

const gapQuestion = "How is agent memory configured?"

// submission is a no-answer feedback from an agent; tests change fields.
func submission(callerID string) Submission {
	return Submission{
		Tool:      ToolFeedback,
		EventType: protocol.EventNoAnswer,
		Question:  gapQuestion,
		Scope:     kgentScope,
		Caller:    Caller{Type: "agent", ID: callerID},
		BodyHash:  "body-1",
	}
}

func storePath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "state", "feedback.db")
}

// openAt opens a store at path and closes it when the test ends.
func openAt(t *testing.T, path string, o Options) *Store {
	t.Helper()
	s, err := Open(path, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// renderCounting renders a response that would differ on every call, so a
// byte-identical replay proves the stored bytes were returned.
func renderCounting() func(Result) ([]byte, error) {
	var calls atomic.Int64
	return func(r Result) ([]byte, error) {
		return json.Marshal(map[string]any{
			"id": r.Record.ID, "count": r.Record.Count, "created": r.Created,
			"render": calls.Add(1),
		})
	}
}

func mustSubmit(t *testing.T, s *Store, sub Submission) Result {
	t.Helper()
	res, err := s.Submit(t.Context(), sub, renderCounting())
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	return res
}

func mustGet(t *testing.T, s *Store, id string) Record {
	t.Helper()
	rec, err := s.Get(id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return rec
}

func callerIDs(rec Record) []string {
	ids := make([]string, len(rec.Callers))
	for i, c := range rec.Callers {
		ids[i] = c.ID
	}
	return ids
}

func agent(i int) string { return fmt.Sprintf("agent-%02d", i) }

// eventually waits, at most 5s, for cond: the sink is reached by the
// background sync loop, so tests wait for its effect instead of assuming it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitSynced waits until the outbox is empty: every committed occurrence
// has reached the sink and the answer is stored.
func waitSynced(t *testing.T, s *Store) {
	t.Helper()
	eventually(t, "outbox drained", func() bool {
		ids, err := s.pendingIDs()
		if err != nil {
			t.Fatal(err)
		}
		return len(ids) == 0
	})
}
