package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/protocol"
)

// submit stores one feedback occurrence as the gate would.
func submit(t *testing.T, st *feedback.Store, tool, event, question, caller string, scope protocol.Scope, paths ...string) feedback.Record {
	t.Helper()
	sub := feedback.Submission{Tool: tool, EventType: event, Question: question, Scope: scope, CitationPaths: paths,
		Comment: "line one\nline two", Caller: feedback.Caller{Type: caller, ID: "x", At: time.Now()}, BodyHash: question}
	res, err := st.Submit(context.Background(), sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

// TestFromFeedbackWritesCandidateCases fills a feedback store as readers
// would (a no-answer reported three times by two kinds of caller, the same
// question as an improvement task, a closed record, another event type)
// and checks what `wikigate eval --from-feedback` prints: a set LoadSet
// reads as it is, one unanswerable case per open question, most reported
// first, with the record ids, counts and comments on one line each, and no
// caller id.
func TestFromFeedbackWritesCandidateCases(t *testing.T) {
	file := filepath.Join(t.TempDir(), "feedback.db")
	st, err := feedback.Open(file, feedback.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kgent := protocol.Scope{Projects: []string{"kunora-kgent"}}
	gap := "What is the payroll schedule for contractors?"
	for _, caller := range []string{"agent", "anonymous", "anonymous"} {
		submit(t, st, feedback.ToolFeedback, eventNoAnswer, gap, caller, kgent)
	}
	submit(t, st, feedback.ToolImprovementTask, eventNoAnswer, "  what is the PAYROLL schedule for contractors? ", "agent", kgent)
	closed := submit(t, st, feedback.ToolFeedback, eventNoAnswer, "How do I rotate the Redis password?", "agent", protocol.Scope{})
	if err := st.CloseRecord(closed.ID); err != nil {
		t.Fatal(err)
	}
	submit(t, st, feedback.ToolFeedback, "docs_typo", "Typo on the install page", "agent", protocol.Scope{})
	working := submit(t, st, feedback.ToolFeedback, eventNoAnswer, "When does memory v2 ship?", "human",
		protocol.Scope{Projects: []string{"kunora-kgent"}, IncludeWorkingDocs: true})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	var out, notes bytes.Buffer
	code, err := Main(context.Background(), Options{FromFeedback: file, Notes: &notes}, &out)
	if code != ExitOK || err != nil {
		t.Fatalf("exit %d: %v", code, err)
	}
	set, err := ParseSet(out.Bytes())
	if err != nil {
		t.Fatalf("the candidate set does not load: %v\n%s", err, out.String())
	}
	if len(set.Cases) != 2 {
		t.Fatalf("cases = %+v, want the payroll gap (merged) and the working-docs question\n%s", set.Cases, out.String())
	}
	first, second := set.Cases[0], set.Cases[1]
	if first.Question != gap || first.Kind != KindUnanswerable || first.Caller != CallerAnonymous ||
		first.Scope == nil || strings.Join(first.Scope.Projects, ",") != "kunora-kgent" {
		t.Errorf("first case = %+v, want the payroll question, unanswerable, anonymous, scoped to kunora-kgent", first)
	}
	if second.ID != working.ID || second.Caller != "maintainer" || !second.Scope.IncludeWorkingDocs ||
		set.Callers["maintainer"].TokenEnv != "WIKIGATE_EVAL_MAINTAINER" {
		t.Errorf("second case = %+v, callers %+v: want the working-docs question asked by a maintainer", second, set.Callers)
	}
	text := out.String()
	for _, want := range []string{"reported 4 time(s) (qa_no_answer)", "agent ×2, anonymous ×2", "reader's comment: line one line two", "kind: answerable"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"rotate the Redis password", "Typo on the install page", "id: x\n"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("output holds %q:\n%s", unwanted, text)
		}
	}
	if !strings.Contains(notes.String(), "2 candidate case(s) from 3 open record(s)") {
		t.Errorf("notes = %q", notes.String())
	}
}

// TestCandidatesFromRatings: an answer rated not helpful is a candidate,
// with the pages it cited in the comment; one rated only helpful is not.
func TestCandidatesFromRatings(t *testing.T) {
	var recs []feedbackRecord
	for _, raw := range []string{
		`{"id":"fb-1","tool":"create_feedback","eventType":"qa_answer","question":"How long are logs kept?","status":"open","count":2,
		  "citationPaths":["publish/operations/monitoring.md"],"ratings":{"helpful":1,"notHelpful":1},"callers":[{"type":"anonymous"},{"type":"anonymous"}]}`,
		`{"id":"fb-2","tool":"create_feedback","eventType":"qa_answer","question":"What share of traces is sampled?","status":"open","count":1,
		  "ratings":{"helpful":1,"notHelpful":0}}`,
		`{"id":"fb-3","tool":"create_feedback","eventType":"qa_answer","question":"Which port?","status":"open","count":1,
		  "callers":[{"type":"agent","rating":"not_helpful"}]}`,
	} {
		var r feedbackRecord
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	cands := Candidates(recs)
	if len(cands) != 2 || cands[0].ID != "fb-1" || cands[1].ID != "fb-3" {
		t.Fatalf("candidates = %v, want fb-1 and fb-3", cands)
	}
	var out bytes.Buffer
	if err := WriteCandidates(&out, "feedback.db", cands); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 not-helpful rating(s)", "the rated answer cited: publish/operations/monitoring.md"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := ParseSet(out.Bytes()); err != nil {
		t.Errorf("does not load: %v", err)
	}
}

// TestFromFeedbackErrors: a missing store is named and never created; a
// PostgreSQL URL's password never reaches the set's header; --set with
// --from-feedback is a usage error.
func TestFromFeedbackErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope", "feedback.db")
	code, err := Main(context.Background(), Options{FromFeedback: missing}, &bytes.Buffer{})
	if code != ExitUsage || err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing store: exit %d, %v", code, err)
	}
	if _, statErr := os.Stat(filepath.Dir(missing)); !os.IsNotExist(statErr) {
		t.Errorf("reading a missing store created %s (%v)", filepath.Dir(missing), statErr)
	}
	if got := sourceName("postgres://wiki:s3cret@db:5432/feedback?sslmode=disable"); strings.Contains(got, "s3cret") || got != "postgres://db:5432/feedback" {
		t.Errorf("sourceName = %q", got)
	}
	code, err = Main(context.Background(), Options{FromFeedback: missing, SetFile: "x.yaml"}, &bytes.Buffer{})
	if code != ExitUsage || err == nil {
		t.Errorf("both flags: exit %d, %v", code, err)
	}
}
