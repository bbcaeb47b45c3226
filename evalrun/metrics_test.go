package evalrun

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

const testSet = `
callers:
  maintainer: {kind: human, tokenEnv: EVAL_HUMAN}
  anonymous: {kind: anonymous, forbidden: [publish/design/]}
cases:
  - {id: a1, kind: answerable, question: q, expected: [p/a.md, p/b.md]}
  - {id: a2, kind: answerable, question: q, expected: [p/c.md]}
  - {id: a3, kind: answerable, question: q, expected: [p/d.md], caller: maintainer}
  - {id: u1, kind: unanswerable, question: q}
  - {id: u2, kind: unanswerable, question: q}
  - {id: r1, kind: restricted, question: q}
`

func mustSet(t *testing.T, y string) *Set {
	t.Helper()
	s, err := ParseSet([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, deref(got), want)
	}
}

func deref(v *float64) any {
	if v == nil {
		return "absent"
	}
	return *v
}

// TestScoreAndSummarize checks the figures against ones computed by hand.
func TestScoreAndSummarize(t *testing.T) {
	s := mustSet(t, testSet)
	obs := []Observation{
		// a1: first expected page at distinct rank 3 (x repeats); cites b (expected) and z: P 1/2, R 1/2
		{SearchPaths: []string{"p/x.md", "p/x.md", "p/y.md", "p/b.md"}, Confidence: "high", CitedPaths: []string{"p/b.md", "p/z.md", "p/b.md"}, SearchLatency: 10 * time.Millisecond, AskLatency: 100 * time.Millisecond},
		// a2: rank 1, but a no-answer: recall 0, no precision
		{SearchPaths: []string{"p/c.md"}, NoAnswer: true, Confidence: "low", SearchLatency: 20 * time.Millisecond, AskLatency: 200 * time.Millisecond},
		// a3: not found; answered citing a wrong page: P 0, R 0
		{SearchPaths: []string{"p/q.md"}, Confidence: "medium", CitedPaths: []string{"p/q.md"}, SearchLatency: 30 * time.Millisecond, AskLatency: 300 * time.Millisecond},
		// u1: a no-answer (right)
		{NoAnswer: true, Confidence: "low", SearchLatency: 40 * time.Millisecond, AskLatency: 400 * time.Millisecond},
		// u2: answered (wrong)
		{Confidence: "medium", CitedPaths: []string{"p/a.md"}, SearchLatency: 50 * time.Millisecond, AskLatency: 500 * time.Millisecond},
		// r1: denied, but search showed a forbidden page twice: one leak
		{AskDenied: true, SearchPaths: []string{"publish/design/v2.md", "publish/ok.md"}, RelatedPaths: []string{"publish/design/v2.md"}, SearchLatency: 60 * time.Millisecond, AskLatency: 600 * time.Millisecond},
	}
	var results []CaseResult
	for i, c := range s.Cases {
		results = append(results, Score(s, c, obs[i]))
	}
	if r := results[0]; r.Rank != 3 || *r.Hit1 || !*r.Hit5 || !r.Correct {
		t.Errorf("a1 = rank %d hit1 %v hit5 %v correct %v, want 3 false true true", r.Rank, *r.Hit1, *r.Hit5, r.Correct)
	}
	near(t, "a1 precision", results[0].CitePrec, 0.5)
	near(t, "a1 recall", results[0].CiteRecall, 0.5)
	if results[1].CitePrec != nil || results[1].Answered {
		t.Errorf("a2: a no-answer has no citation precision and is not answered: %+v", results[1])
	}
	if got := results[5].Leaks; len(got) != 1 || got[0] != "publish/design/v2.md" || results[5].Correct {
		t.Errorf("r1 leaks = %v correct %v, want the one forbidden path and not correct", got, results[5].Correct)
	}

	sum := Summarize(results)
	near(t, "hit@1", sum.Hit1, 1.0/3)
	near(t, "hit@5", sum.Hit5, 2.0/3)
	near(t, "MRR", sum.MRR, (1.0/3+1+0)/3)
	near(t, "answer rate", sum.AnswerRate, 2.0/3)
	near(t, "citation precision", sum.CitePrec, (0.5+0)/2)
	near(t, "citation recall", sum.CiteRecall, (0.5+0+0)/3)
	// should not answer: u1 u2 r1; did not answer: a2 u1 r1 → both: u1 r1
	near(t, "no-answer precision", sum.NoAnswerPrec, 2.0/3)
	near(t, "no-answer recall", sum.NoAnswerRec, 2.0/3)
	if sum.Leaks != 1 {
		t.Errorf("leaks = %d, want 1", sum.Leaks)
	}
	// high: a1 right; medium: a3 wrong, u2 wrong; low: a2 wrong, u1 right; denied: r1 wrong (leak)
	for level, want := range map[string][2]int{"high": {1, 1}, "medium": {2, 0}, "low": {2, 1}, "denied": {1, 0}} {
		if l := sum.Calibration[level]; l.Cases != want[0] || l.Correct != want[1] {
			t.Errorf("calibration %s = %d/%d, want %d/%d", level, l.Correct, l.Cases, want[1], want[0])
		}
	}
	// nearest rank over 10..60 ms: p50 is the 3rd (30), p95 the 6th (60)
	if sum.SearchP50 != 30 || sum.SearchP95 != 60 || sum.AskP50 != 300 || sum.AskP95 != 600 {
		t.Errorf("latency = search %v/%v ask %v/%v, want 30/60 300/600", sum.SearchP50, sum.SearchP95, sum.AskP50, sum.AskP95)
	}
}

func TestGateErrorIsNotScored(t *testing.T) {
	s := mustSet(t, testSet)
	r := Score(s, s.Cases[0], Observation{Err: errors.New("gate error: /answer/ask: 502")})
	sum := Summarize([]CaseResult{r})
	if sum.Errors != 1 || sum.Hit5 != nil || sum.Answerable != 0 {
		t.Errorf("summary of one gate error = %+v, want 1 error and no figures", sum)
	}
}

func TestThresholds(t *testing.T) {
	th := NoThresholds()
	th.MinHit5, th.MinNoAnswerRecall = 0.7, 0.5
	s := Summary{Hit5: ptr(0.6), NoAnswerRec: ptr(0.5), Leaks: 2}
	got := strings.Join(th.Check(s), "\n")
	for _, want := range []string{"hit@5 0.600 is under the minimum 0.700", "2 restricted path(s) leaked, at most 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("missed threshold lines %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "no-answer recall") {
		t.Errorf("no-answer recall 0.5 meets its minimum 0.5: %q", got)
	}
	if got := NoThresholds().Check(Summary{}); len(got) != 0 {
		t.Errorf("no thresholds and no leaks: %v", got)
	}
}

func TestParseSetRejects(t *testing.T) {
	for name, y := range map[string]string{
		"unknown field":        "cases: [{id: a, kind: answerable, question: q, expected: [x], expect: [y]}]",
		"answerable no pages":  "cases: [{id: a, kind: answerable, question: q}]",
		"restricted no bounds": "cases: [{id: a, kind: restricted, question: q}]",
		"bad kind":             "cases: [{id: a, kind: maybe, question: q}]",
		"undefined caller":     "cases: [{id: a, kind: unanswerable, question: q, caller: bob}]",
		"caller without env":   "callers: {bob: {kind: agent}}\ncases: [{id: a, kind: unanswerable, question: q, caller: bob}]",
		"duplicate id":         "cases: [{id: a, kind: unanswerable, question: q}, {id: a, kind: unanswerable, question: q}]",
		"no cases":             "cases: []",
	} {
		if _, err := ParseSet([]byte(y)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// JSON is read by the same decoder
	if _, err := ParseSet([]byte(`{"cases":[{"id":"a","kind":"unanswerable","question":"q"}]}`)); err != nil {
		t.Errorf("JSON set refused: %v", err)
	}
}
