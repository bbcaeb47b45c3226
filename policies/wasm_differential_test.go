package policies_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// TestWasmDecidesLikeTopdown decides the differential test's generated
// calls (every data variant, the current policy and the frozen one) with
// the policy compiled to Wasm and with OPA's topdown evaluator, and
// requires the same decision, tool-gate decision and error for each: the
// Wasm evaluator may only change how fast a decision is made.
func TestWasmDecidesLikeTopdown(t *testing.T) {
	t.Parallel()
	calls := differentialCalls
	if testing.Short() {
		calls /= 10
	}
	for _, dir := range []string{defaultPolicyDir, frozenPolicyDir} {
		for _, variant := range dataVariants() {
			t.Run(dir+"/"+variant.name, func(t *testing.T) {
				topdown := differentialEngineWith(t, dir, variant.edit, policies.EvaluatorTopdown)
				wasm := differentialEngineWith(t, dir, variant.edit, policies.EvaluatorWasm)
				gen := newCallGenerator(variant.name)
				outcomes := map[string]int{}
				for i := range calls {
					outcomes[compareEvaluators(t, i, topdown, wasm, gen.call())]++
				}
				t.Logf("outcomes: %v", outcomes)
			})
		}
	}
}

// compareEvaluators decides in with both engines, both queries, and fails
// on any difference; it returns the decision's outcome.
func compareEvaluators(t *testing.T, i int, topdown, wasm *policies.Engine, in policies.Input) string {
	t.Helper()
	ctx := context.Background()
	var outcome string
	for _, q := range []struct {
		name   string
		decide func(*policies.Engine) (policies.Decision, error)
	}{
		{"decision", func(e *policies.Engine) (policies.Decision, error) { return e.Decide(ctx, in) }},
		{"tool_decision", func(e *policies.Engine) (policies.Decision, error) { return e.DecideTool(ctx, in) }},
	} {
		want, wantErr := q.decide(topdown)
		got, gotErr := q.decide(wasm)
		if (wantErr != nil) != (gotErr != nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("call %d, %s: %s\ntopdown: %+v (error %v)\nwasm:    %+v (error %v)",
				i, q.name, describeInput(in), want, wantErr, got, gotErr)
		}
		if outcome == "" {
			outcome = string(want.Code)
			if want.Allow {
				outcome = "allow"
			}
			if wantErr != nil {
				outcome = "error"
			}
		}
	}
	return outcome
}
