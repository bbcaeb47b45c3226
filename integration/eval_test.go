package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/evalrun"
)

// TestEvalSampleWikiSet runs `wikigate eval`'s logic with the shipped
// sample wiki set against the gate with its development backends: every
// case is asked through the public routes as its caller (anonymous people,
// an agent JWT, a maintainer's SSO token), nothing restricted leaks, and
// the report is complete, every figure at or above its floor (the
// measured value less floorMargin). The anonymous ask budget is raised so the run
// does not wait out rate limits.
func TestEvalSampleWikiSet(t *testing.T) {
	dir := copyDir(t, "../rego")
	data := filepath.Join(dir, "data.json")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	const limits = `"anonymous": {"search": 120, "ask": 30,`
	if !bytes.Contains(b, []byte(limits)) {
		t.Fatalf("rego/data.json no longer holds %s; update this test", limits)
	}
	b = bytes.Replace(b, []byte(limits), []byte(`"anonymous": {"search": 1000, "ask": 1000,`), 1)
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g := startGate(t, gateOptions{policyDir: dir, ragflowExtra: evalBackendTimeout})
	tokens := map[string]string{
		"WIKIGATE_EVAL_AGENT":      agentToken(t, "kunora-coding-agent"),
		"WIKIGATE_EVAL_MAINTAINER": humanToken(t, "alice", "wiki-maintainer"),
	}
	var out bytes.Buffer
	code, err := evalrun.Main(context.Background(), evalrun.Options{
		SetFile: "../evalsets/samplewiki.yaml", GateURL: g.url, JSON: true,
		// measured: hit@1 .667 hit@5 .778 MRR .716 answer rate .750 citation P .457 R .574 no-answer P .640 R .941
		// (docs/eval.md, "Tuning the gate's decisions", has each change's figures)
		Concurrency: 2, Timeout: 15 * time.Second, Thresholds: floorsUnder(0.667, 0.778, 0.716, 0.750, 0.457, 0.574, 0.640, 0.941),
		Getenv: func(k string) string { return tokens[k] },
	}, &out)
	keepReport(t, "samplewiki.yaml", out.Bytes())
	if code != evalrun.ExitOK {
		t.Fatalf("exit %d (%v):\n%s", code, err, out.String())
	}
	var r evalrun.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if s.Errors != 0 || s.Leaks != 0 || s.Cases < 40 || s.Hit5 == nil || s.NoAnswerRec == nil {
		t.Errorf("summary = %+v, want every case scored and no leak", s)
	}
	byID := map[string]evalrun.CaseResult{}
	for _, c := range r.Cases {
		byID[c.ID] = c
	}
	// anonymous readers asking for working docs are refused by the gate
	if c := byID["anonymous-includes-working-docs"]; !c.Denied || !c.Correct {
		t.Errorf("anonymous includeWorkingDocs = %+v, want denied (403) and correct", c)
	}
	// a maintainer's token reaches the working doc that answers
	if c := byID["maintainer-memory-v2-recall"]; !c.Answered || c.CiteRecall == nil || *c.CiteRecall != 1 {
		t.Errorf("maintainer case = %+v, want an answer citing design/agent-memory-v2.md", c)
	}
	if strings.Contains(out.String(), tokens["WIKIGATE_EVAL_AGENT"]) {
		t.Error("the report prints a token")
	}
	t.Logf("sample wiki on the development backends: hit@1 %.3f hit@5 %.3f MRR %.3f answer rate %.3f citation P %.3f R %.3f no-answer P %.3f R %.3f",
		*s.Hit1, *s.Hit5, *s.MRR, *s.AnswerRate, *s.CitePrec, *s.CiteRecall, *s.NoAnswerPrec, *s.NoAnswerRec)
}
