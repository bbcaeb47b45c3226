package policies

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"

	"github.com/wikigate/wikigate/policies/wasmeval"
)

// The evaluators an Engine can decide with (Options.Evaluator). Both
// evaluate the same Rego modules and data; the Rego stays the source of
// truth either way.
const (
	// EvaluatorTopdown is OPA's tree-walking evaluator (rego.PreparedEvalQuery).
	EvaluatorTopdown = "topdown"
	// EvaluatorWasm compiles the policy with OPA's own Wasm compiler at
	// every load, checks it decides a corpus of calls as topdown does
	// (crosscheck.go) and evaluates it on wazero (package wasmeval): the
	// same decision for about a seventh of topdown's cost. Policy tests,
	// bundle builds and replays still run on topdown.
	EvaluatorWasm = "wasm"
)

// defaultEvaluator is what an empty Options.Evaluator means. The tests
// set it (export_test.go) to run the whole suite on either evaluator.
var defaultEvaluator = EvaluatorAuto

// checkEvaluator refuses an unknown evaluator name; "" is defaultEvaluator.
func checkEvaluator(name string) (string, error) {
	if name == "" {
		name = defaultEvaluator
	}
	switch name {
	case EvaluatorTopdown:
		return EvaluatorTopdown, nil
	case EvaluatorWasm:
		return EvaluatorWasm, nil
	case EvaluatorAuto:
		return EvaluatorAuto, nil
	}
	return "", fmt.Errorf("unknown policy evaluator %q (want %q, %q or %q)", name, EvaluatorAuto, EvaluatorTopdown, EvaluatorWasm)
}

// wasmQueries is a policy compiled to Wasm with the decision query and,
// when the policy defines it, the tool gate as entrypoints.
type wasmQueries struct {
	policy   *wasmeval.Policy
	decision int32
	tool     int32 // valid when prepared.tool is set
}

// compileWasm compiles modules and documents (the data) for query and,
// when hasTool, ToolQuery. A failure refuses the candidate like a compile
// error of the Rego itself. rego is the modules' digest (regoDigest): the
// module compiled for the same Rego and queries earlier in the process is
// reused.
func compileWasm(ctx context.Context, rego string, modules map[string]*ast.Module, documents map[string]any, query string, hasTool bool) (*wasmQueries, error) {
	queries := []string{query}
	if hasTool {
		queries = append(queries, ToolQuery)
	}
	if _, err := ast.ParseRef(query); err != nil {
		return nil, fmt.Errorf("wasm evaluator: query %s is not a data reference: %w", query, err)
	}
	module, err := compiledModule(ctx, rego, modules, queries)
	if err != nil {
		return nil, err
	}
	if documents == nil {
		documents = map[string]any{}
	}
	data, err := json.Marshal(documents)
	if err != nil {
		return nil, fmt.Errorf("wasm evaluator: policy data: %w", err)
	}
	policy, err := wasmeval.New(ctx, module, data)
	if err != nil {
		return nil, fmt.Errorf("wasm evaluator: %w", err)
	}
	w := &wasmQueries{policy: policy}
	var ok bool
	if w.decision, ok = policy.Entrypoint(query); !ok {
		policy.Close()
		return nil, fmt.Errorf("wasm evaluator: no entrypoint for %s", query)
	}
	if hasTool {
		if w.tool, ok = policy.Entrypoint(ToolQuery); !ok {
			policy.Close()
			return nil, fmt.Errorf("wasm evaluator: no entrypoint for %s", ToolQuery)
		}
	}
	return w, nil
}

// wasmCompiled remembers the last Wasm modules compiled in the process, by
// the Rego's digest and the entrypoints: OPA's compile to Wasm (~45 ms for
// the shipped policy, several times that under -race) reads only those, so
// a data-only edit, a Caddy reload or another site's gate on the same
// policy need not repeat it. Two, as the native code kept by wasmeval.
var wasmCompiled = newMemo[[]byte](2)

// compiledModule is wasmeval.Compile through wasmCompiled; a failure is
// never remembered.
func compiledModule(ctx context.Context, rego string, modules map[string]*ast.Module, queries []string) ([]byte, error) {
	key := rego + "\x00" + strings.Join(queries, "\x00")
	if module, ok := wasmCompiled.get(key); ok {
		return module, nil
	}
	module, err := wasmeval.Compile(ctx, modules, queries...)
	if err == nil {
		wasmCompiled.put(key, module)
	}
	return module, err
}

// close releases the Wasm instances of a policy that no longer serves.
func (w *wasmQueries) close() {
	if w != nil {
		w.policy.Close()
	}
}

// decideWasm evaluates entrypoint on in and reads the result with read,
// timing the evaluation into m (when set) under OPA's own name for it.
// Undefined is ErrUndefinedDecision; any other failure (abort, trap,
// built-in error, a malformed result) is an error: deny. what prefixes
// the error ("tool gate: ").
func (p *prepared) decideWasm(ctx context.Context, entrypoint int32, in *Input, m metrics.Metrics, what string,
	read func(wireDecision, error) (Decision, error)) (Decision, error) {
	bufs := wasmBuffers.Get().(*wasmBuffer)
	defer wasmBuffers.Put(bufs)
	bufs.in = in.appendJSON(bufs.in[:0])
	if m != nil {
		m.Timer(metrics.RegoQueryEval).Start()
	}
	var err error
	bufs.out, err = p.wasm.policy.Eval(ctx, entrypoint, bufs.in, bufs.out[:0])
	if m != nil {
		m.Timer(metrics.RegoQueryEval).Stop()
	}
	switch {
	case errors.Is(err, wasmeval.ErrUndefined):
		return Decision{}, fmt.Errorf("policy %s: %s%w", p.revision, what, ErrUndefinedDecision)
	case err != nil:
		return Decision{}, fmt.Errorf("evaluate policy %s: %s%w", p.revision, what, err)
	}
	d, err := read(readWireJSON(bufs.out))
	if err != nil {
		return Decision{}, fmt.Errorf("policy %s: %s%w", p.revision, what, err)
	}
	d.Revision, d.Digest = p.revision, p.digest
	if p.keepResult {
		d.result = json.RawMessage(bytes.Clone(bufs.out)) // the buffer is reused
	}
	return d, nil
}

// wasmBuffer holds one evaluation's input and result JSON. Eval copies the
// input into the instance and the result out of it, and the reader copies
// every string it keeps, so the buffers are free again once decideWasm
// returns.
type wasmBuffer struct{ in, out []byte }

var wasmBuffers = sync.Pool{New: func() any { return &wasmBuffer{in: make([]byte, 0, 1024), out: make([]byte, 0, 2048)} }}

// evaluateWasm is evaluate on the Wasm evaluator.
func (p *prepared) evaluateWasm(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	return p.decideWasm(ctx, p.wasm.decision, in, m, "", decisionOf)
}

// evaluateToolWasm is evaluateTool on the Wasm evaluator.
func (p *prepared) evaluateToolWasm(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	return p.decideWasm(ctx, p.wasm.tool, in, m, "tool gate: ", toolDecisionOf)
}
