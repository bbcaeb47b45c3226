package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// standInGate answers the four routes with known results, keyed by the
// question, and records the credentials it saw.
func standInGate(t *testing.T) (*httptest.Server, *[]string) {
	t.Helper()
	var seen []string
	var mu sync.Mutex
	answers := map[string]string{
		"memory":  `{"answer":"a [1]","citations":[{"path":"p/memory.md"}],"confidence":"high","noAnswerReason":null,"relatedPages":[{"path":"p/tools.md"}]}`,
		"tools":   `{"answer":"b [1]","citations":[{"path":"p/other.md"}],"confidence":"medium","noAnswerReason":null}`,
		"payroll": `{"answer":"","citations":[],"confidence":"low","noAnswerReason":{"code":"no_answer","reason":"no_evidence"}}`,
	}
	hits := map[string]string{
		"memory":  `{"hits":[{"path":"p/memory.md"},{"path":"p/tools.md"}]}`,
		"tools":   `{"hits":[{"path":"p/memory.md"},{"path":"p/tools.md"}]}`,
		"payroll": `{"hits":[]}`,
		"roadmap": `{"hits":[{"path":"p/design/v2.md"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Question string }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization")+r.Header.Get("X-Agent-Api-Key"))
		mu.Unlock()
		if cred := r.Header.Get("Authorization") + r.Header.Get("X-Agent-Api-Key"); cred == "Bearer expired" || (strings.HasPrefix(r.URL.Path, "/agent/") && cred == "") {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"code":"unauthorized","message":"no credential"}}`))
			return
		}
		switch {
		case body.Question == "roadmap" && strings.HasSuffix(r.URL.Path, "/ask"):
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":"forbidden_scope","message":"working docs"}}`))
		case body.Question == "boom":
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(`{"error":{"code":"upstream_unavailable","message":"down"}}`))
		case strings.HasSuffix(r.URL.Path, "/search"):
			w.Write([]byte(hits[body.Question]))
		default:
			w.Write([]byte(answers[body.Question]))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

const standInSet = `
callers:
  bot: {kind: agent, tokenEnv: EVAL_TEST_AGENT}
  ci: {kind: apikey, tokenEnv: EVAL_TEST_KEY}
cases:
  - {id: memory, kind: answerable, question: memory, expected: [p/memory.md], caller: bot}
  - {id: tools, kind: answerable, question: tools, expected: [p/tools.md], caller: ci}
  - {id: payroll, kind: unanswerable, question: payroll}
  - {id: roadmap, kind: restricted, question: roadmap, forbidden: [p/design/]}
`

func writeSet(t *testing.T, y string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(name, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func env(k string) string {
	return map[string]string{"EVAL_TEST_AGENT": "agent-jwt-secret-value", "EVAL_TEST_KEY": "wgk_key-secret-value", "EVAL_TEST_EXPIRED": "expired"}[k]
}

func runMain(t *testing.T, o Options) (int, string, error) {
	t.Helper()
	var out bytes.Buffer
	o.Concurrency, o.Timeout, o.Getenv = 2, 5*time.Second, env
	if o.Thresholds == (Thresholds{}) {
		o.Thresholds = NoThresholds()
	}
	code, err := Main(context.Background(), o, &out)
	return code, out.String(), err
}

// TestEvalAgainstStandInGate runs the command's logic against a gate whose
// answers are known and checks the figures, the credentials and the exit
// statuses.
func TestEvalAgainstStandInGate(t *testing.T) {
	srv, seen := standInGate(t)
	set := writeSet(t, standInSet)
	code, out, err := runMain(t, Options{SetFile: set, GateURL: srv.URL, JSON: true})
	if err == nil || code != ExitThreshold || !strings.Contains(err.Error(), "1 restricted path(s) leaked") {
		t.Fatalf("exit %d (%v), want 1 for the leaked working page", code, err)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	s := r.Summary
	// memory: rank 1, cites the expected page; tools: rank 2, cites a wrong page
	near(t, "hit@1", s.Hit1, 0.5)
	near(t, "hit@5", s.Hit5, 1)
	near(t, "MRR", s.MRR, 0.75)
	near(t, "answer rate", s.AnswerRate, 1)
	near(t, "citation precision", s.CitePrec, 0.5)
	near(t, "citation recall", s.CiteRecall, 0.5)
	// should not answer: payroll, roadmap; did not: payroll (no-answer), roadmap (403)
	near(t, "no-answer precision", s.NoAnswerPrec, 1)
	near(t, "no-answer recall", s.NoAnswerRec, 1)
	if s.Leaks != 1 || r.Cases[3].Leaks[0] != "p/design/v2.md" || !r.Cases[3].Denied {
		t.Errorf("leaks = %d %v, want the design page that search showed", s.Leaks, r.Cases[3].Leaks)
	}
	if l := s.Calibration["medium"]; l.Cases != 1 || l.Correct != 0 {
		t.Errorf("medium calibration = %+v, want 0/1", l)
	}
	want := []string{"/agent/tools/search Bearer agent-jwt-secret-value", "/agent/tools/search wgk_key-secret-value", "/answer/search ", "/answer/ask "}
	for _, w := range want {
		if !strings.Contains(strings.Join(*seen, "\n"), w) {
			t.Errorf("the gate never saw %q: %v", w, *seen)
		}
	}
	if strings.Contains(out, "secret-value") {
		t.Errorf("the report prints a credential: %s", out)
	}

	// a tolerated leak and met minimums: 0; a missed minimum: 1
	th := NoThresholds()
	th.MaxLeaks, th.MinHit5, th.MinMRR = 1, 1, 0.75
	if code, out, err := runMain(t, Options{SetFile: set, GateURL: srv.URL, Thresholds: th}); code != ExitOK {
		t.Errorf("thresholds met: exit %d (%v)", code, err)
	} else if !strings.Contains(out, "search hit@5") || !strings.Contains(out, "leak in roadmap") {
		t.Errorf("table lacks the totals or the leak:\n%s", out)
	}
	th.MinHit1 = 0.9
	if code, _, err := runMain(t, Options{SetFile: set, GateURL: srv.URL, Thresholds: th}); code != ExitThreshold || !strings.Contains(err.Error(), "hit@1 0.500 is under the minimum 0.900") {
		t.Errorf("hit@1 under its minimum: exit %d (%v), want 1", code, err)
	}
}

func TestEvalGateAndUsageErrors(t *testing.T) {
	srv, _ := standInGate(t)
	for name, tc := range map[string]struct {
		set, url, want string
	}{
		"5xx":         {"cases: [{id: b, kind: unanswerable, question: boom}]", srv.URL, "502 upstream_unavailable"},
		"unset env":   {"callers: {x: {kind: human, tokenEnv: EVAL_UNSET}}\ncases: [{id: b, kind: unanswerable, question: payroll, caller: x}]", srv.URL, "EVAL_UNSET"},
		"refused":     {"callers: {x: {kind: agent, tokenEnv: EVAL_TEST_EXPIRED}}\ncases: [{id: b, kind: unanswerable, question: payroll, caller: x}]", srv.URL, "401 unauthorized"},
		"unreachable": {"cases: [{id: b, kind: unanswerable, question: payroll}]", "http://127.0.0.1:1", "connect"},
		"bad set":     {"cases: [{id: b, kind: sometimes, question: q}]", srv.URL, "kind"},
	} {
		code, _, err := runMain(t, Options{SetFile: writeSet(t, tc.set), GateURL: tc.url})
		if code != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: exit %d (%v), want 2 naming %q", name, code, err, tc.want)
		}
	}
	if code, _, _ := runMain(t, Options{GateURL: srv.URL}); code != ExitUsage {
		t.Errorf("no --set: exit %d, want 2", code)
	}
}

// TestEvalWaitsOutRateLimits: a 429 is retried after its Retry-After, so a
// run longer than the gate's per-caller budget is scored, not failed.
func TestEvalWaitsOutRateLimits(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 { // the first ask
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"rate_limited","message":"retry later"}}`))
			return
		}
		if strings.HasSuffix(r.URL.Path, "/search") {
			w.Write([]byte(`{"hits":[]}`))
			return
		}
		w.Write([]byte(`{"answer":"","citations":[],"confidence":"low","noAnswerReason":{"code":"no_answer","reason":"no_evidence"}}`))
	}))
	defer srv.Close()
	code, out, err := runMain(t, Options{SetFile: writeSet(t, "cases: [{id: p, kind: unanswerable, question: payroll}]"), GateURL: srv.URL, JSON: true})
	if code != ExitOK || calls != 3 || !strings.Contains(out, `"noAnswerRecall": 1`) {
		t.Errorf("exit %d (%v) after %d calls, want 0 after 3 (search, 429, ask):\n%s", code, err, calls, out)
	}
}

// TestEvalRetriesUntilTheWaitBound: a call that keeps losing the freed slot
// (six 429s in a row, as happens with several cases asked at once) is
// still retried: the bound is the time waited, not a count.
func TestEvalRetriesUntilTheWaitBound(t *testing.T) {
	var mu sync.Mutex
	limited := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search") {
			w.Write([]byte(`{"hits":[]}`))
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if limited < 6 {
			limited++
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"rate_limited","message":"retry later"}}`))
			return
		}
		w.Write([]byte(`{"answer":"","citations":[],"confidence":"low","noAnswerReason":{"code":"no_answer","reason":"no_evidence"}}`))
	}))
	defer srv.Close()
	code, out, err := runMain(t, Options{SetFile: writeSet(t, "cases: [{id: p, kind: unanswerable, question: payroll}]"), GateURL: srv.URL, JSON: true})
	if code != ExitOK || !strings.Contains(out, `"noAnswerRecall": 1`) {
		t.Errorf("exit %d (%v) after %d 429s, want 0:\n%s", code, err, limited, out)
	}
}
