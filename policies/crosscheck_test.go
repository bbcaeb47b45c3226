package policies_test

import (
	"reflect"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
)

// TestAutoDecidesWithWasmWhenItAgrees: under the default evaluator the
// shipped policy compiles to Wasm and decides the cross-check's calls as
// topdown does, so Wasm serves, and says so with the number of calls it
// was checked on; its decisions are topdown's.
func TestAutoDecidesWithWasmWhenItAgrees(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	metrics := &evaluatorRecorder{}
	engine, err := policies.New(t.Context(), policies.Options{Dir: defaultPolicyDir, Logger: zap.New(core), Evaluator: policies.EvaluatorAuto, Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.Evaluator(); got != policies.EvaluatorWasm || metrics.evaluator != policies.EvaluatorWasm {
		t.Fatalf("Evaluator() = %q, metrics told %q; want wasm; logs: %v", got, metrics.evaluator, logs.All())
	}
	checked := logs.FilterMessageSnippet("deciding with wasm").All()
	if len(checked) != 1 || checked[0].ContextMap()["calls_checked"].(int64) < 200 {
		t.Fatalf("want one log line naming at least 200 calls checked, got %v", checked)
	}
	t.Logf("calls checked: %d", checked[0].ContextMap()["calls_checked"])
	topdown, err := policies.New(t.Context(), policies.Options{Dir: defaultPolicyDir, Logger: zap.NewNop(), Evaluator: policies.EvaluatorTopdown})
	if err != nil {
		t.Fatal(err)
	}
	if topdown.Evaluator() != policies.EvaluatorTopdown {
		t.Fatalf("explicit topdown engine decides with %s", topdown.Evaluator())
	}
	for _, in := range []policies.Input{
		agentCall("docs-maintainer-agent", "ask", scope(nil, []string{kgent + "/guides"}, "")),
		agentCall("ops-readonly-agent", "ask", nil),
		humanAsk("authenticated-read", anonymousHuman, nil),
	} {
		want, wantErr := topdown.Decide(t.Context(), in)
		got, gotErr := engine.Decide(t.Context(), in)
		if (wantErr != nil) != (gotErr != nil) || !reflect.DeepEqual(want, got) {
			t.Errorf("%+v:\ntopdown %+v %v\nauto    %+v %v", in, want, wantErr, got, gotErr)
		}
	}
}

// divergentPolicy decides a denial whose reason lists a set's members in
// iteration order, which differs between the evaluators (Wasm iterates a
// set in hash order): a policy that means one thing to topdown and
// another to Wasm.
const divergentPolicy = `package wikigate

decision := {"allow": false, "code": "forbidden_scope", "reason": concat(" ", [s | some s in {input.tool, input.endpoint, input.action, "zz", "aa"}])}
`

// TestAutoKeepsTopdownWhenWasmDiffers: a policy Wasm decides differently
// loads and decides with topdown, whose answer is what the Rego means,
// and the warning names the call that differed; the same policy under
// evaluator wasm would serve Wasm's answer.
func TestAutoKeepsTopdownWhenWasmDiffers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", divergentPolicy)
	core, logs := observer.New(zapcore.InfoLevel)
	metrics := &evaluatorRecorder{}
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.New(core), Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	if got := engine.Evaluator(); got != policies.EvaluatorTopdown || metrics.evaluator != policies.EvaluatorTopdown {
		t.Fatalf("Evaluator() = %q, metrics told %q; want topdown for a policy Wasm decides differently", got, metrics.evaluator)
	}
	warned := logs.FilterMessageSnippet("deciding with topdown").All()
	if len(warned) != 1 || warned[0].Level != zapcore.WarnLevel {
		t.Fatalf("want one warning, got %v", logs.All())
	}
	reason, _ := warned[0].ContextMap()["reason"].(string)
	if !strings.Contains(reason, "wasm decides differently from topdown") || !strings.Contains(reason, "/agent/tools/") {
		t.Errorf("reason %q does not name the difference and the call", reason)
	}
	topdown, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), Evaluator: policies.EvaluatorTopdown})
	if err != nil {
		t.Fatal(err)
	}
	in := agentCall("any-agent", "search", nil)
	want, _ := topdown.Decide(t.Context(), in)
	got, _ := engine.Decide(t.Context(), in)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("auto decided %+v, topdown %+v", got, want)
	}
}

// TestAutoKeepsTopdownWhenWasmCannotCompile: a policy the Wasm compiler
// refuses (it takes the compiler's reserved package) still loads under the
// default evaluator, on topdown; evaluator wasm refuses it
// (TestWasmRefusesWhatItCannotServe).
func TestAutoKeepsTopdownWhenWasmCannotCompile(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	writeFile(t, dir, "reserved.rego", "package wasmeval_internal\n\nx := 1\n")
	core, logs := observer.New(zapcore.InfoLevel)
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	if engine.Evaluator() != policies.EvaluatorTopdown || logs.FilterMessageSnippet("deciding with topdown").Len() != 1 {
		t.Fatalf("Evaluator() = %q, logs %v; want topdown and a warning", engine.Evaluator(), logs.All())
	}
	if d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search", nil)); err != nil || !d.Allow {
		t.Errorf("Decide = %+v, %v; want the shipped allow", d, err)
	}
}

// TestAutoKeepsTopdownWhenWasmAborts: a policy whose evaluation fails
// (two values for one complete rule) fails in both evaluators, but each
// failed Wasm call costs an instance rebuilt from the data image, so the
// policy stays on topdown and says why.
func TestAutoKeepsTopdownWhenWasmAborts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", `package wikigate

decision := {"allow": false, "code": "unauthorized", "reason": "a"} if input.tool != ""

decision := {"allow": false, "code": "unauthorized", "reason": "b"} if input.action != ""
`)
	core, logs := observer.New(zapcore.InfoLevel)
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	warned := logs.FilterMessageSnippet("deciding with topdown").All()
	if engine.Evaluator() != policies.EvaluatorTopdown || len(warned) != 1 ||
		!strings.Contains(warned[0].ContextMap()["reason"].(string), "wasm evaluation fails") {
		t.Fatalf("Evaluator() = %q, logs %v; want topdown and a warning naming the failure", engine.Evaluator(), logs.All())
	}
	if _, err := engine.Decide(t.Context(), agentCall("a", "search", nil)); err == nil {
		t.Error("a conflicting decision was decided")
	}
}

// TestWasmRefusesWhatDecidesDifferently: under evaluator wasm the load's
// cross-check refuses a policy Wasm decides differently from topdown (at
// start: New fails naming the call; the same policy under auto serves on
// topdown, TestAutoKeepsTopdownWhenWasmDiffers).
func TestWasmRefusesWhatDecidesDifferently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", divergentPolicy)
	_, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), Evaluator: policies.EvaluatorWasm})
	if err == nil || !strings.Contains(err.Error(), "wasm decides differently from topdown") {
		t.Fatalf("New(divergent policy, wasm) = %v, want the cross-check's refusal", err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	engine, err := policies.New(t.Context(), policies.Options{Dir: defaultPolicyDir, Logger: zap.New(core), Evaluator: policies.EvaluatorWasm})
	if err != nil || engine.Evaluator() != policies.EvaluatorWasm || logs.FilterMessageSnippet("deciding with wasm").Len() != 1 {
		t.Fatalf("shipped policy under evaluator wasm: %v, %v", err, logs.All())
	}
}

// evaluatorRecorder keeps the evaluator the engine last told its
// observer (the policy_revision_info metric's label).
type evaluatorRecorder struct{ evaluator string }

func (*evaluatorRecorder) PolicyReload(string)                  {}
func (r *evaluatorRecorder) PolicyRevision(_, evaluator string) { r.evaluator = evaluator }
