package feedback

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// rating is a reader's rating of an answer; tests change fields.
func rating(callerID, r, comment string) Submission {
	sub := submission(callerID)
	sub.EventType, sub.Rating, sub.Comment = protocol.EventAnswer, r, comment
	sub.Caller.Type = "human"
	sub.CitationPaths = []string{"publish/system/components/kunora-kgent/memory.md"}
	return sub
}

// Ratings of one answer merge into one record that counts each kind,
// and the callers list says who rated how.
func TestRatingsOfAnAnswerMergeAndCount(t *testing.T) {
	s := openAt(t, storePath(t), Options{})
	first := mustSubmit(t, s, rating("alice", protocol.RatingNotHelpful, "stale"))
	mustSubmit(t, s, rating("bob", protocol.RatingHelpful, ""))
	last := mustSubmit(t, s, rating("carol", protocol.RatingHelpful, ""))
	rec := last.Record
	if last.Created || rec.ID != first.Record.ID || rec.Count != 3 || rec.Ratings == nil || *rec.Ratings != (Ratings{Helpful: 2, NotHelpful: 1}) {
		t.Fatalf("merged record: %+v ratings %+v", rec, rec.Ratings)
	}
	if got := rec.Callers[0].Rating + "," + rec.Callers[2].Rating; got != "not_helpful,helpful" {
		t.Errorf("callers' ratings %q", got)
	}
	if gap := mustSubmit(t, s, submission("agent-a")).Record; gap.Ratings != nil {
		t.Errorf("a gap report has ratings: %+v", gap.Ratings)
	}
}

// A bare "helpful" never opens or comments on an issue; a "not helpful"
// opens one that states the ratings so far, and a later rating with a
// comment is a comment naming its rating.
func TestGitHubHearsOfProblemsNotOfEveryThumbsUp(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	res := submitSynced(t, s, rating("alice", protocol.RatingHelpful, ""))
	if n := len(gh.snapshot()); n != 0 || res.Record.SyncPending {
		t.Fatalf("a helpful rating opened %d issues (pending %v)", n, res.Record.SyncPending)
	}
	submitSynced(t, s, rating("bob", protocol.RatingNotHelpful, ""))
	submitSynced(t, s, rating("carol", protocol.RatingHelpful, ""))
	submitSynced(t, s, rating("dave", protocol.RatingHelpful, "thanks, but the example is outdated"))
	issues := gh.snapshot()
	if len(issues) != 1 {
		t.Fatalf("issues: %d, want 1", len(issues))
	}
	if !strings.Contains(issues[0].Body, "ratings:      1 helpful, 1 not helpful") || !strings.Contains(issues[0].Body, "qa_answer") {
		t.Errorf("issue body:\n%s", issues[0].Body)
	}
	if len(issues[0].Comments) != 1 || !strings.Contains(issues[0].Comments[0], "rating:       helpful") || !strings.Contains(issues[0].Comments[0], "occurrence 4") {
		t.Errorf("comments: %q", issues[0].Comments)
	}
	rec := mustGet(t, s, res.Record.ID)
	if rec.Count != 4 || *rec.Ratings != (Ratings{Helpful: 3, NotHelpful: 1}) || rec.SyncPending {
		t.Errorf("record: count %d ratings %+v pending %v", rec.Count, rec.Ratings, rec.SyncPending)
	}
}

// When the issue is closed upstream, the ratings after what it saw move to
// the new record with their occurrences, and neither record counts one
// twice.
func TestClosedIssueSplitsTheRatings(t *testing.T) {
	gh := newFakeGitHub(t)
	s := openAt(t, storePath(t), Options{Sink: gh.sink(t)})
	first := submitSynced(t, s, rating("alice", protocol.RatingNotHelpful, ""))
	gh.closeIssue(1)
	submitSynced(t, s, rating("bob", protocol.RatingNotHelpful, "still wrong"))
	old := mustGet(t, s, first.Record.ID)
	cur, found, err := s.FindOpen(ToolFeedback, first.Record.DedupeKey)
	if err != nil || !found {
		t.Fatalf("no open record: %v", err)
	}
	if *old.Ratings != (Ratings{NotHelpful: 1}) || cur.Ratings == nil || *cur.Ratings != (Ratings{NotHelpful: 1}) {
		t.Fatalf("ratings: closed %+v, open %+v", old.Ratings, cur.Ratings)
	}
}
