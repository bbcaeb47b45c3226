package feedback

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestGitHubOneIssuePerGapRepeatsBecomeComments(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	first := submission("kunora-coding-agent")
	first.CitationPaths = []string{"publish/b.md", "publish/a.md"}
	res := submitSynced(t, s, first)
	second := first
	second.Caller = Caller{Type: "human", ID: "alice"}
	submitSynced(t, s, second)
	submitSynced(t, s, first)
	other := submission("kunora-coding-agent")
	other.Question = "Where are the ops runbooks?"
	submitSynced(t, s, other)

	issues := gh.snapshot()
	if len(issues) != 2 {
		t.Fatalf("want one issue per gap (2), got %d", len(issues))
	}
	gap := issues[0]
	if len(gap.Comments) != 2 || len(issues[1].Comments) != 0 {
		t.Fatalf("comments = %d and %d, want 2 and 0", len(gap.Comments), len(issues[1].Comments))
	}
	for _, want := range []string{"occurrence 2", "human alice", "occurrence 3", "agent kunora-coding-agent"} {
		if !strings.Contains(strings.Join(gap.Comments, "\n"), want) {
			t.Errorf("comments lack %q:\n%s", want, gap.Comments)
		}
	}
	for _, want := range []string{gapQuestion, res.Record.DedupeKey, "qa_no_answer", "kunora-kgent",
		"publish/system/components/kunora-kgent", "publish/a.md, publish/b.md", "version:      main"} {
		if !strings.Contains(gap.Body, want) {
			t.Errorf("issue body lacks %q:\n%s", want, gap.Body)
		}
	}
	if strings.Contains(gap.Body, testToken) || strings.Join(gap.Labels, ",") != "wikigate,knowledge-gap" {
		t.Errorf("body/labels wrong: labels %v", gap.Labels)
	}
	rec := mustGet(t, s, res.Record.ID)
	want := IssueRef{Number: 1, URL: "https://github.example/acme/wiki/issues/1", State: "open"}
	if rec.Issue == nil || *rec.Issue != want || rec.SyncPending || rec.Count != 3 {
		t.Fatalf("record issue = %+v pending %v count %d", rec.Issue, rec.SyncPending, rec.Count)
	}
}

func TestGitHubClosedIssueOpensANewRecordAndIssue(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	first := submitSynced(t, s, submission("agent-a"))
	gh.closeIssue(1)
	submitSynced(t, s, submission("agent-b"))

	issues := gh.snapshot()
	if len(issues) != 2 || len(issues[0].Comments) != 0 {
		t.Fatalf("want a second issue and no comment on the closed one, got %d issues, %d comments",
			len(issues), len(issues[0].Comments))
	}
	old := mustGet(t, s, first.Record.ID)
	if old.Status != StatusClosed || old.Count != 1 || old.Issue.State != "closed" || len(old.Callers) != 1 {
		t.Fatalf("old record = %+v", old)
	}
	cur, found, err := s.FindOpen(ToolFeedback, first.Record.DedupeKey)
	if err != nil || !found {
		t.Fatalf("no open record: %v", err)
	}
	if cur.ID == old.ID || cur.Count != 1 || cur.Issue == nil || cur.Issue.Number != 2 || cur.Callers[0].ID != "agent-b" {
		t.Fatalf("new record = %+v", cur)
	}
}

func TestGitHubRestartDoesNotDuplicateTheIssue(t *testing.T) {
	gh := newFakeGitHub(t)
	path := storePath(t)
	s, err := Open(path, Options{Sink: gh.sink(t)})
	if err != nil {
		t.Fatal(err)
	}
	submitSynced(t, s, submission("agent-a"))
	gh.setDown(true) // agent-b is still pending when the store closes
	mustSubmit(t, s, submission("agent-b"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	gh.setDown(false)
	s = openAt(t, path, Options{Sink: gh.sink(t)})
	submitSynced(t, s, submission("agent-c"))
	issues := gh.snapshot()
	if len(issues) != 1 || len(issues[0].Comments) != 2 ||
		!strings.Contains(issues[0].Comments[0], "agent agent-b") || !strings.Contains(issues[0].Comments[1], "agent agent-c") {
		t.Fatalf("after restart: %d issues, %+v", len(issues), issues)
	}
}

func TestGitHubDownKeepsSubmissionsAndSyncPendingCatchesUp(t *testing.T) {
	gh := newFakeGitHub(t)
	core, logs := observer.New(zap.DebugLevel)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t), Logger: zap.New(core)})

	gh.setDown(true)
	first := mustSubmit(t, s, submission("agent-a"))
	mustSubmit(t, s, submission("agent-b"))
	rec := mustGet(t, s, first.Record.ID)
	if rec.Count != 2 || !rec.SyncPending || rec.Issue != nil {
		t.Fatalf("while down: %+v", rec)
	}
	if err := s.SyncPending(t.Context()); !errors.Is(err, ErrSinkUnavailable) {
		t.Fatalf("SyncPending while down: %v", err)
	}
	eventually(t, "the background sync logs the outage", func() bool {
		return logs.FilterMessageSnippet("sync failed").Len() > 0
	})

	gh.setDown(false)
	if err := s.SyncPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	issues := gh.snapshot()
	if len(issues) != 1 || !strings.Contains(issues[0].Body, "occurrences:  2") || len(issues[0].Comments) != 0 {
		t.Fatalf("after recovery: %+v", issues)
	}
	if rec = mustGet(t, s, first.Record.ID); rec.SyncPending || rec.Issue == nil || rec.Issue.Number != 1 {
		t.Fatalf("after recovery: %+v", rec)
	}

	// Repeats during a second outage arrive later as one comment each,
	// with the count as it was then.
	gh.setDown(true)
	mustSubmit(t, s, submission("agent-c"))
	mustSubmit(t, s, submission("agent-d"))
	gh.setDown(false)
	if err := s.SyncPending(t.Context()); err != nil {
		t.Fatal(err)
	}
	comments := gh.snapshot()[0].Comments
	if len(comments) != 2 || !strings.Contains(comments[0], "occurrence 3") || !strings.Contains(comments[1], "agent agent-d") {
		t.Fatalf("late comments: %q", comments)
	}
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.Message, e.ContextMap()), testToken) {
			t.Fatalf("token logged: %v", e)
		}
	}
}

func TestGitHubIssueClosedDuringOutageMovesLaterOccurrences(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	first := submitSynced(t, s, submission("agent-a"))
	gh.setDown(true)
	for _, id := range []string{"agent-b", "agent-c"} {
		sub := submission(id)
		sub.Comment = "still missing (" + id + ")"
		mustSubmit(t, s, sub)
	}
	gh.closeIssue(1)
	gh.setDown(false)
	if err := s.SyncPending(t.Context()); err != nil {
		t.Fatal(err)
	}

	old := mustGet(t, s, first.Record.ID)
	cur, found, _ := s.FindOpen(ToolFeedback, first.Record.DedupeKey)
	if old.Status != StatusClosed || old.Count != 1 || len(old.Callers) != 1 || len(old.Comments) != 0 {
		t.Fatalf("old record = %+v", old)
	}
	if !found || cur.Count != 2 || strings.Join(callerIDs(cur), ",") != "agent-b,agent-c" || len(cur.Comments) != 2 {
		t.Fatalf("new record = %+v", cur)
	}
	issues := gh.snapshot()
	if len(issues) != 2 || len(issues[0].Comments) != 0 || cur.Issue == nil || cur.Issue.Number != 2 ||
		!strings.Contains(issues[1].Body, "still missing (agent-c)") {
		t.Fatalf("issues = %+v, record issue %+v", issues, cur.Issue)
	}
}

func TestGitHubConcurrentSubmissionsMakeOneIssue(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			sub := submission(agent(i))
			sub.IdempotencyKey = agent(i)
			_, err := s.Submit(t.Context(), sub, nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	waitSynced(t, s)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	issues := gh.snapshot()
	if len(issues) != 1 {
		t.Fatalf("want one issue, got %d", len(issues))
	}
	// The issue's body and comments together account for every occurrence.
	var counted int
	if _, err := fmt.Sscanf(issues[0].Body[strings.Index(issues[0].Body, "occurrences:"):], "occurrences: %d", &counted); err != nil {
		t.Fatal(err)
	}
	if counted+len(issues[0].Comments) != n {
		t.Fatalf("issue body says %d, plus %d comments, want %d", counted, len(issues[0].Comments), n)
	}
}

func TestSyncIntervalRetriesInTheBackground(t *testing.T) {
	gh := newFakeGitHub(t)
	// At most two rounds run without the ticker (the one at Open and the one
	// Submit kicks), each stopping at its first failure; failing two calls
	// means only a ticker round can get the record through.
	sink := &failingFirst{Sink: gh.sink(t)}
	sink.failures.Store(2)
	s := openAt(t, storePath(t), Options{Sink: sink, SyncInterval: 10 * time.Millisecond})
	res := mustSubmit(t, s, submission("agent-a"))
	waitSynced(t, s)
	if rec := mustGet(t, s, res.Record.ID); rec.Issue == nil || rec.Issue.Number != 1 {
		t.Fatalf("record after retries: %+v", rec)
	}
	if issues := gh.snapshot(); len(issues) != 1 {
		t.Fatalf("want one issue, got %d", len(issues))
	}
}

func TestSubmitDoesNotWaitForTheSink(t *testing.T) {
	sink := &stuckSink{release: make(chan struct{})}
	s := openAt(t, storePath(t), Options{Sink: sink})
	first := mustSubmit(t, s, submission("agent-a"))
	second := mustSubmit(t, s, submission("agent-b"))
	if sink.gaveUp.Load() {
		t.Fatal("Submit waited for the sink")
	}
	if first.Record.Issue != nil || !first.Record.SyncPending || second.Record.Count != 2 {
		t.Fatalf("results should be what was committed: %+v / %+v", first.Record, second.Record)
	}
	close(sink.release)
	waitSynced(t, s)
	if rec := mustGet(t, s, first.Record.ID); rec.Issue == nil || rec.Count != 2 {
		t.Fatalf("after the sink caught up: %+v", rec)
	}
}

// failingFirst fails its first failures calls as an outage would.
type failingFirst struct {
	Sink
	failures atomic.Int32
}

func (f *failingFirst) Sync(ctx context.Context, rec Record, occ Caller) (IssueRef, error) {
	if f.failures.Add(-1) >= 0 {
		return IssueRef{}, fmt.Errorf("%w: test outage", ErrSinkUnavailable)
	}
	return f.Sink.Sync(ctx, rec, occ)
}

// stuckSink hangs like an unresponsive GitHub until released; it gives up
// after 5s so a Submit that waits for it fails the test instead of hanging.
type stuckSink struct {
	release chan struct{}
	gaveUp  atomic.Bool
}

func (b *stuckSink) Sync(context.Context, Record, Caller) (IssueRef, error) {
	select {
	case <-b.release:
		return IssueRef{Number: 1, URL: "https://github.example/acme/wiki/issues/1", State: StatusOpen}, nil
	case <-time.After(5 * time.Second):
		b.gaveUp.Store(true)
		return IssueRef{}, fmt.Errorf("%w: never released", ErrSinkUnavailable)
	}
}

// submitSynced submits and waits for the sink to see it, so a test can
// change the fake GitHub knowing what it already holds.
func submitSynced(t *testing.T, s *Store, sub Submission) Result {
	t.Helper()
	res := mustSubmit(t, s, sub)
	waitSynced(t, s)
	return res
}

func TestNewGitHubSinkChecksItsConfig(t *testing.T) {
	tests := map[string]GitHubConfig{
		"repo without owner": {Repo: "wiki", Token: "t"},
		"repo with a path":   {Repo: "acme/wiki/issues", Token: "t"},
		"no token":           {Repo: testRepo},
		"api url not http":   {Repo: testRepo, Token: "t", APIURL: "ftp://example"},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := NewGitHubSink(cfg); err == nil {
				t.Fatal("accepted a bad config")
			}
		})
	}
	if _, err := NewGitHubSink(GitHubConfig{Repo: testRepo, Token: testToken}); err != nil {
		t.Fatalf("default API URL: %v", err)
	}
}

func TestGitHubErrorsNameTheStatusNotTheToken(t *testing.T) {
	gh := newFakeGitHub(t)
	g, err := NewGitHubSink(GitHubConfig{Repo: testRepo, Token: "wrong-" + testToken, APIURL: gh.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Sync(t.Context(), Record{Title: "x", Question: "q"}, Caller{})
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), testToken) {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, ErrSinkUnavailable) {
		t.Fatal("bad credentials are not an outage")
	}
}

func TestIssueTextKeepsCallerTextInsideFences(t *testing.T) {
	rec := Record{
		Tool: ToolFeedback, EventType: "answer_wrong", DedupeKey: "k",
		Question: "ping @security-team\n```\n# fake heading\nfixes #1",
		Comments: []string{"````` also ````` here"},
	}
	body := issueBody(rec)
	if !strings.Contains(body, "````text\nping @security-team\n```\n# fake heading\nfixes #1\n````\n") {
		t.Errorf("question not fenced safely:\n%s", body)
	}
	if !strings.Contains(body, "``````text\n````` also ````` here\n``````\n") {
		t.Errorf("comment not fenced safely:\n%s", body)
	}
	if title := issueTitle(rec); title != "[answer_wrong] ping @security-team ``` # fake heading fixes #1" {
		t.Errorf("title = %q", title)
	}
}

// An issue created for a record is found again by the marker in its body,
// which is how a store that lost GitHub's answer avoids a second issue.
func TestFindIssueByRecordMarker(t *testing.T) {
	gh := newFakeGitHub(t)
	g := gh.sink(t)
	for _, id := range []string{"fb-0000000001", "fb-0000000002"} {
		if _, err := g.Sync(t.Context(), Record{ID: id, Tool: ToolFeedback, EventType: "missing_docs", Question: "q " + id}, Caller{}); err != nil {
			t.Fatal(err)
		}
	}
	ref, found, err := g.FindIssue(t.Context(), Record{ID: "fb-0000000001"})
	if err != nil || !found || ref.Number != 1 || ref.State != StatusOpen {
		t.Fatalf("find fb-1: %+v %v %v", ref, found, err)
	}
	if _, found, err := g.FindIssue(t.Context(), Record{ID: "fb-0000000003"}); err != nil || found {
		t.Fatalf("find a record without an issue: found=%v err=%v", found, err)
	}
}
