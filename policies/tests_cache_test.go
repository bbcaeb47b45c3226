package policies

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// writePolicy writes a one-rule policy and one test file into a new
// directory.
func writePolicy(t *testing.T, rule, test string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"p.rego":      "package wikigate\n\ndecision := {\"allow\": true}\n\n" + rule + "\n",
		"p_test.rego": "package wikigate_test\n\nimport data.wikigate\n\n" + test + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A candidate's passing tests are remembered by its digest only when they
// would pass on every run; failures and tests of time-dependent policies
// run on every load.
func TestPassedTestsRemembered(t *testing.T) {
	cases := []struct {
		name, rule, test string
		pass, remembered bool
	}{
		{"deterministic, passing", "n := 1", "test_n if wikigate.n == 1", true, true},
		{"failing", "n := 1", "test_n if wikigate.n == 2", false, false},
		{"policy reads the clock", "n := time.now_ns()", "test_n if wikigate.n > 0", true, false},
		{"test reads the clock", "n := 1", "test_n if time.now_ns() > wikigate.n", true, false},
	}
	for _, c := range cases {
		cand, err := dirCandidate(writePolicy(t, c.rule, c.test))
		if err != nil {
			t.Fatal(err)
		}
		for run := 1; run <= 2; run++ { // the second run must say the same
			if err := cand.test(context.Background()); (err == nil) != c.pass {
				t.Errorf("%s, run %d: %v", c.name, run, err)
			}
		}
		if got := testsPassed.has(cand.digest); got != c.remembered {
			t.Errorf("%s: remembered %v, want %v", c.name, got, c.remembered)
		}
	}
}

func TestDigestSetKeepsTheLast(t *testing.T) {
	s := &digestSet{max: 2}
	for _, d := range []string{"a", "b", "a", "c"} {
		s.add(d)
	}
	if s.has("a") || !s.has("b") || !s.has("c") {
		t.Errorf("kept %v, want b and c", s.digests)
	}
}
