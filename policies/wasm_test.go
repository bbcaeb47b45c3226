package policies_test

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// TestWasmRefusesWhatItCannotServe: a query that is not a rule, and a
// policy that takes the Wasm compiler's reserved package, do not load on
// the Wasm evaluator; an unknown evaluator is refused outright.
func TestWasmRefusesWhatItCannotServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", "package wikigate\n\ndecisions contains "+allowBody+"\n")
	_, err := policies.New(t.Context(), policies.Options{Dir: dir, Query: "data.wikigate.decisions[_]", Evaluator: policies.EvaluatorWasm})
	if err == nil || !strings.Contains(err.Error(), "wasm") {
		t.Errorf("New(query decisions[_], wasm) = %v, want a wasm compile error", err)
	}
	reserved := copyPolicyDir(t)
	writeFile(t, reserved, "reserved.rego", "package wasmeval_internal\n\nx := 1\n")
	if _, err := policies.New(t.Context(), policies.Options{Dir: reserved, Evaluator: policies.EvaluatorWasm}); err == nil ||
		!strings.Contains(err.Error(), "reserved") {
		t.Errorf("New(reserved package, wasm) = %v, want it refused", err)
	}
	if _, err := policies.New(t.Context(), policies.Options{Dir: defaultPolicyDir, Evaluator: "fast"}); err == nil {
		t.Error(`New(Evaluator "fast") succeeded, want an error`)
	}
}

// TestWasmReloadRefusesWhatDoesNotCompile: a candidate that passes its
// tests on topdown but does not compile to Wasm is refused like a broken
// one; the serving revision keeps deciding.
func TestWasmReloadRefusesWhatDoesNotCompile(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), Evaluator: policies.EvaluatorWasm})
	if err != nil {
		t.Fatal(err)
	}
	before := engine.Revision()
	writeFile(t, dir, "reserved.rego", "package wasmeval_internal\n\nx := 1\n")
	if err := engine.Reload(t.Context()); err == nil {
		t.Fatal("Reload of a policy that does not compile to wasm succeeded")
	}
	if engine.Revision() != before || engine.ReloadFailures() != 1 {
		t.Errorf("revision %s (want %s), %d failures (want 1)", engine.Revision(), before, engine.ReloadFailures())
	}
	d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search", nil))
	if err != nil || !d.Allow {
		t.Errorf("after the refused reload Decide = %+v, %v; want the old policy's allow", d, err)
	}
}

// TestWasmConcurrentDecisions decides generated calls from many goroutines
// at once on one Wasm engine (each evaluation needs its own instance) and
// requires topdown's decisions; run with -race.
func TestWasmConcurrentDecisions(t *testing.T) {
	t.Parallel()
	variant := dataVariants()[0]
	topdown := differentialEngineWith(t, defaultPolicyDir, variant.edit, policies.EvaluatorTopdown)
	wasm := differentialEngineWith(t, defaultPolicyDir, variant.edit, policies.EvaluatorWasm)
	gen := newCallGenerator("concurrent")
	calls := make([]policies.Input, 400)
	want := make([]policies.Decision, len(calls))
	for i := range calls {
		calls[i] = gen.call()
		want[i], _ = topdown.Decide(context.Background(), calls[i])
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(calls); i += 8 {
				got, _ := wasm.Decide(context.Background(), calls[i])
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("call %d: wasm %+v, topdown %+v", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
