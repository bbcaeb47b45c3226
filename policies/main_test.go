package policies_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// TestMain runs the suite with the evaluator WIKIGATE_TEST_EVALUATOR names
// for engines that do not choose one (default auto, as in production), so
// that every behaviour test (cache, warm-up, reloads, decision logs,
// observers) can be run on each evaluator:
//
//	WIKIGATE_TEST_EVALUATOR=wasm go test ./policies/
func TestMain(m *testing.M) {
	if name := os.Getenv("WIKIGATE_TEST_EVALUATOR"); name != "" {
		if name != policies.EvaluatorTopdown && name != policies.EvaluatorWasm && name != policies.EvaluatorAuto {
			fmt.Fprintf(os.Stderr, "WIKIGATE_TEST_EVALUATOR=%q: want %q, %q or %q\n", name, policies.EvaluatorAuto, policies.EvaluatorTopdown, policies.EvaluatorWasm)
			os.Exit(2)
		}
		policies.SetDefaultEvaluator(name)
	}
	os.Exit(m.Run())
}

// TestEvaluatorUnderTest names the suite's evaluator. Reading the variable
// here, while tests run, also keys go test's result cache on it (TestMain
// reads it before the cache's log starts).
func TestEvaluatorUnderTest(t *testing.T) {
	t.Logf("WIKIGATE_TEST_EVALUATOR=%q", os.Getenv("WIKIGATE_TEST_EVALUATOR"))
}
