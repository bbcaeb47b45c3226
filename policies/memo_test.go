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
		if _, got := testsPassed.get(cand.digest); got != c.remembered {
			t.Errorf("%s: remembered %v, want %v", c.name, got, c.remembered)
		}
	}
}

func TestMemoKeepsTheLast(t *testing.T) {
	m := newMemo[int](2)
	for i, k := range []string{"a", "b", "a", "c"} {
		m.put(k, i)
	}
	_, a := m.get("a")
	b, _ := m.get("b")
	c, _ := m.get("c")
	if a || b != 1 || c != 3 {
		t.Errorf("kept %v, want b=1 and c=3", m.vals)
	}
}

// A second load of the same files in the process checks Wasm against
// topdown only on the calls it brings (none at start-up) and says the
// first load's count; a policy whose builds differ is checked, and falls
// back to topdown, every time.
func TestCrossCheckRememberedForTheSameFiles(t *testing.T) {
	load := func(dir string) *prepared {
		t.Helper()
		e, err := New(t.Context(), Options{Dir: dir, Evaluator: EvaluatorAuto, SkipTests: true})
		if err != nil {
			t.Fatal(err)
		}
		return e.current.Load()
	}
	first := load("../rego")
	key := first.revision + "\x00" + DefaultQuery
	n, ok := crossChecked.get(key)
	if first.wasm == nil || !ok || n < 200 || first.crossChecked != n {
		t.Fatalf("first load: wasm %v, remembered %d %v, checked %d", first.wasm != nil, n, ok, first.crossChecked)
	}
	if again := load("../rego"); again.wasm == nil || again.crossChecked != n {
		t.Errorf("second load: wasm %v, checked %d, want %d", again.wasm != nil, again.crossChecked, n)
	}
	divergent := t.TempDir()
	if err := os.WriteFile(filepath.Join(divergent, "p.rego"), []byte(`package wikigate

decision := {"allow": false, "code": "forbidden_scope", "reason": concat(" ", [s | some s in {input.tool, input.endpoint, "zz", "aa"}])}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		p := load(divergent)
		if p.wasm != nil || p.topdownReason == "" {
			t.Fatalf("divergent policy: wasm %v, reason %q", p.wasm != nil, p.topdownReason)
		}
		if _, ok := crossChecked.get(p.revision + "\x00" + DefaultQuery); ok {
			t.Fatal("a difference was remembered")
		}
	}
}

// The Wasm module compiled for a Rego is reused for a load of the same Rego
// with other data (the data is loaded into each instance, never compiled
// in), and that load decides with its own data; other Rego compiles anew.
func TestWasmModuleRememberedForTheSameRego(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.rego", "package wikigate\n\ndecision := {\"allow\": false, \"code\": \"forbidden_scope\", \"reason\": data.x_reason}\n")
	decide := func() (Decision, *prepared) {
		t.Helper()
		e, err := New(t.Context(), Options{Dir: dir, Evaluator: EvaluatorWasm, SkipTests: true})
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.Decide(t.Context(), Input{Tool: "search"})
		if err != nil {
			t.Fatal(err)
		}
		return d, e.current.Load()
	}
	module := func(p *prepared) []byte {
		m, ok := wasmCompiled.get(p.rego + "\x00" + DefaultQuery)
		if !ok {
			t.Fatalf("no module remembered for %s", p.rego)
		}
		return m
	}
	write("data.json", `{"x_reason": "first data"}`)
	before, first := decide()
	write("data.json", `{"x_reason": "second data"}`)
	after, second := decide()
	if before.Reason != "first data" || after.Reason != "second data" {
		t.Errorf("reasons %q then %q, want each load's data", before.Reason, after.Reason)
	}
	if first.rego != second.rego || &module(first)[0] != &module(second)[0] {
		t.Error("a data-only edit compiled the Rego to Wasm again")
	}
	write("p.rego", "package wikigate\n\ndecision := {\"allow\": false, \"code\": \"forbidden_tool\", \"reason\": data.x_reason}\n")
	if d, third := decide(); d.Code != "forbidden_tool" || third.rego == first.rego {
		t.Errorf("edited Rego: code %q, digest unchanged %v", d.Code, third.rego == first.rego)
	}
}
