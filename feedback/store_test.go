package feedback

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wikigate/wikigate/dedupe"
	"github.com/wikigate/wikigate/protocol"
)

func TestSecondSubmissionMergesOnlyTheSameGap(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Submission)
		merges bool
	}{
		{"same question, other caller", func(s *Submission) { s.Caller = Caller{Type: "human", ID: "alice"} }, true},
		{"other spelling of the question", func(s *Submission) { s.Question = "  how IS agent   memory configured?" }, true},
		{"scope entries in another order", func(s *Submission) {
			s.Scope.Paths = []string{"publish/system/components/kunora-kgent", "publish/system/components/kunora-kgent"}
		}, true},
		{"other question", func(s *Submission) { s.Question = "How is the gateway deployed?" }, false},
		{"other scope version", func(s *Submission) { s.Scope.Version = "v1.0" }, false},
		{"working docs included", func(s *Submission) { s.Scope.IncludeWorkingDocs = true }, false},
		{"other event type", func(s *Submission) { s.EventType = "answer_wrong" }, false},
		{"other citations", func(s *Submission) { s.CitationPaths = []string{"publish/a.md"} }, false},
		{"improvement task instead of feedback", func(s *Submission) { s.Tool = ToolImprovementTask }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openAt(t, storePath(t), Options{})
			first := mustSubmit(t, s, submission("agent-a"))
			second := submission("agent-b")
			tc.change(&second)
			res := mustSubmit(t, s, second)

			all, err := s.List("")
			if err != nil {
				t.Fatal(err)
			}
			if tc.merges {
				if res.Created || res.Record.ID != first.Record.ID || res.Record.Count != 2 || len(all) != 1 {
					t.Fatalf("want merge into %s with count 2, got %+v (records %d)", first.Record.ID, res, len(all))
				}
				if got := len(res.Record.Callers); got != 2 {
					t.Fatalf("want both callers kept, got %d", got)
				}
				return
			}
			if !res.Created || res.Record.ID == first.Record.ID || res.Record.Count != 1 || len(all) != 2 {
				t.Fatalf("want a second record, got %+v (records %d)", res, len(all))
			}
		})
	}
}

func TestMergedRecordKeepsCallersCommentsAndTimes(t *testing.T) {
	c := newClock()
	s := openAt(t, storePath(t), Options{Now: c.Now})
	first := submission("agent-a")
	first.Title, first.Comment = "Agent memory is undocumented", "nothing on memory"
	mustSubmit(t, s, first)
	c.Advance(time.Hour)
	second := submission("bob")
	second.Caller.Type, second.Comment = "human", "me neither"
	res := mustSubmit(t, s, second)

	rec := mustGet(t, s, res.Record.ID)
	want := Record{
		ID: res.Record.ID, Tool: ToolFeedback, EventType: protocol.EventNoAnswer,
		DedupeKey: dedupe.Key(protocol.EventNoAnswer, gapQuestion, kgentScope, nil),
		Title:     "Agent memory is undocumented", Question: gapQuestion, Status: StatusOpen, Count: 2,
	}
	if rec.DedupeKey != want.DedupeKey || rec.Title != want.Title || rec.Question != want.Question ||
		rec.Status != want.Status || rec.Count != want.Count || rec.Tool != want.Tool {
		t.Fatalf("record = %+v, want %+v", rec, want)
	}
	if !rec.FirstSeenAt.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) || !rec.LastSeenAt.Equal(c.Now()) {
		t.Fatalf("first/last seen = %v/%v", rec.FirstSeenAt, rec.LastSeenAt)
	}
	if rec.Callers[0].Type != "agent" || rec.Callers[1].Type != "human" || !rec.Callers[1].At.Equal(c.Now()) {
		t.Fatalf("callers = %+v", rec.Callers)
	}
	if strings.Join(rec.Comments, "|") != "nothing on memory|me neither" {
		t.Fatalf("comments = %q", rec.Comments)
	}
}

func TestBoundedListsKeepTheLatestAndAnExactCount(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	const n = maxCallers + 5
	var res Result
	for i := range n {
		sub := submission(agent(i))
		sub.Comment = agent(i)
		res = mustSubmit(t, s, sub)
	}
	rec := mustGet(t, s, res.Record.ID)
	if rec.Count != n || len(rec.Callers) != maxCallers || len(rec.Comments) != maxComments {
		t.Fatalf("count %d callers %d comments %d", rec.Count, len(rec.Callers), len(rec.Comments))
	}
	if rec.Callers[0].ID != agent(5) || rec.Comments[maxComments-1] != agent(n-1) {
		t.Fatalf("kept the wrong end: first caller %s, last comment %s", rec.Callers[0].ID, rec.Comments[maxComments-1])
	}
}

func TestCloseRecordMakesTheNextOccurrenceANewRecord(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	first := mustSubmit(t, s, submission("agent-a"))
	if err := s.CloseRecord(first.Record.ID); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.FindOpen(ToolFeedback, first.Record.DedupeKey); found {
		t.Fatal("closed record is still found open")
	}
	second := mustSubmit(t, s, submission("agent-b"))
	if !second.Created || second.Record.ID == first.Record.ID || second.Record.Count != 1 {
		t.Fatalf("want a new record, got %+v", second.Record)
	}
	if old := mustGet(t, s, first.Record.ID); old.Status != StatusClosed || old.Count != 1 {
		t.Fatalf("old record = %+v", old)
	}
	open, found, err := s.FindOpen(ToolFeedback, first.Record.DedupeKey)
	if err != nil || !found || open.ID != second.Record.ID {
		t.Fatalf("FindOpen = %v %v %v, want %s", open.ID, found, err, second.Record.ID)
	}
	if err := s.CloseRecord("fb-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("closing an unknown record: %v", err)
	}
}

func TestRecordsSurviveARestart(t *testing.T) {
	path := storePath(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	keyed := submission("agent-a")
	keyed.IdempotencyKey = "retry-1"
	first := mustSubmit(t, s, keyed)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openAt(t, path, Options{})
	if rec := mustGet(t, s, first.Record.ID); rec.Count != 1 || rec.Question != gapQuestion {
		t.Fatalf("after reopen: %+v", rec)
	}
	retry := mustSubmit(t, s, keyed)
	if !retry.Replayed || !bytes.Equal(retry.Response, first.Response) {
		t.Fatalf("retry after restart was not replayed: %s", retry.Response)
	}
	again := mustSubmit(t, s, submission("agent-b"))
	if again.Created || again.Record.ID != first.Record.ID || again.Record.Count != 2 {
		t.Fatalf("count did not continue: %+v", again.Record)
	}
}

func TestOpenCreatesPrivateFilesAndFailsFastWhenLocked(t *testing.T) {
	path := storePath(t)
	openAt(t, path, Options{})
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s mode %v, want at most %v", p, got, want)
		}
	}
	// flock conflicts between two open files even within one process, so
	// this is what a second wikigate process sees.
	_, err := Open(path, Options{LockTimeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second Open: %v, want a locked-file error", err)
	}
}

func TestQuestionNeverAppearsInAKey(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	sub := submission("agent-a")
	sub.IdempotencyKey = "k1"
	mustSubmit(t, s, sub)
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, _ []byte) error {
				if bytes.Contains(bytes.ToLower(k), []byte("memory")) {
					t.Errorf("bucket %s has a key with the question in it: %q", name, k)
				}
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSubmitRefusesWhatItCannotKey(t *testing.T) {
	tests := map[string]func(*Submission){
		"unknown tool":     func(s *Submission) { s.Tool = "delete_everything" },
		"no event type":    func(s *Submission) { s.EventType = "" },
		"no caller id":     func(s *Submission) { s.Caller.ID = "" },
		"no caller type":   func(s *Submission) { s.Caller.Type = "" },
		"empty submission": func(s *Submission) { *s = Submission{} },
	}
	s := openAt(t, storePath(t), Options{})
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			sub := submission("agent-a")
			change(&sub)
			if _, err := s.Submit(t.Context(), sub, nil); !errors.Is(err, ErrInvalidSubmission) {
				t.Fatalf("err = %v, want ErrInvalidSubmission", err)
			}
		})
	}
	if all, _ := s.List(""); len(all) != 0 {
		t.Fatalf("invalid submissions stored %d records", len(all))
	}
}

func TestRenderFailureStoresNothing(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	sub := submission("agent-a")
	sub.IdempotencyKey = "k1"
	boom := errors.New("boom")
	if _, err := s.Submit(t.Context(), sub, func(Result) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if all, _ := s.List(""); len(all) != 0 {
		t.Fatalf("stored %d records after a failed render", len(all))
	}
	res := mustSubmit(t, s, sub) // the key was not burnt either
	if res.Replayed || !res.Created {
		t.Fatalf("retry after failed render: %+v", res)
	}
}

func TestListFiltersByToolOldestFirst(t *testing.T) {
	c := newClock()
	s := openAt(t, storePath(t), Options{Now: c.Now})
	a := mustSubmit(t, s, submission("x"))
	c.Advance(time.Minute)
	task := submission("x")
	task.Tool = ToolImprovementTask
	b := mustSubmit(t, s, task)
	c.Advance(time.Minute)
	other := submission("x")
	other.Question = "Where are the ops runbooks?"
	d := mustSubmit(t, s, other)

	ids := func(rs []Record) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	if got, _ := s.List(ToolFeedback); ids(got) != a.Record.ID+","+d.Record.ID {
		t.Errorf("feedback list = %s", ids(got))
	}
	if got, _ := s.List(ToolImprovementTask); ids(got) != b.Record.ID || !strings.HasPrefix(b.Record.ID, "task-") {
		t.Errorf("task list = %s", ids(got))
	}
	if got, _ := s.List(""); len(got) != 3 {
		t.Errorf("all = %s", ids(got))
	}
}
