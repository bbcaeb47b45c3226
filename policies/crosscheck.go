package policies

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies/wasmeval"
)

// EvaluatorAuto (the default) decides with Wasm when the policy earns it
// at load: it must compile to Wasm, and the Wasm module must decide a
// corpus of calls (corpusOf: calls derived from the data being loaded and
// the calls the serving revision answered most recently) exactly as OPA's
// topdown evaluator does, for the decision and the tool gate. Topdown
// defines what the Rego means; Wasm is only a faster way to the same
// answer, so any difference (or a policy the Wasm compiler or its
// built-ins cannot take) leaves topdown deciding, with the reason logged.
// EvaluatorWasm runs the same check and refuses such a policy.
const EvaluatorAuto = "auto"

// crossCheckRecent bounds the serving revision's recent calls a reload's
// cross-check decides besides the corpus derived from the data.
const crossCheckRecent = 256

// useWasmIfSame (EvaluatorAuto) is useWasm, except that a policy that
// fails it is kept on topdown, with p.topdownReason saying why.
//
// A policy that calls a non-deterministic built-in (http.send, time.now_ns,
// rand.intn...) stays on topdown: its answers may change between two
// evaluations of one input, so agreeing on the corpus vouches for nothing,
// and such built-ins (http.send's caches and network) are topdown's to
// run. EvaluatorWasm still serves it on Wasm when the check passes.
func (p *prepared) useWasmIfSame(ctx context.Context, modules map[string]*ast.Module, documents map[string]any, query string, recent []Input) {
	if p.uncacheable != "" {
		p.topdownReason = "the policy calls " + p.uncacheable + ", a non-deterministic built-in: the cross-check cannot vouch for it on wasm"
		return
	}
	if err := p.useWasm(ctx, modules, documents, query, recent); err != nil {
		p.topdownReason = err.Error()
	}
}

// useWasm compiles the policy to Wasm and puts it on p once it decided
// every call of the corpus as p's topdown queries do. Under EvaluatorWasm
// its error refuses the policy: a policy that means something else to the
// Wasm module must not serve there either.
func (p *prepared) useWasm(ctx context.Context, modules map[string]*ast.Module, documents map[string]any, query string, recent []Input) error {
	w, err := compileWasm(ctx, p.rego, modules, documents, query, p.tool != nil)
	if err != nil {
		return err
	}
	p.wasm = w
	// The corpus derived from the data is the same for the same files; a
	// deterministic policy whose files passed it before in this process
	// need only be checked on the recent calls this load brings.
	key := p.revision + "\x00" + query
	before, checked := crossChecked.get(key)
	corpus := recent
	if !checked { // never true of a non-deterministic policy: it is not remembered
		before, corpus = 0, corpusOf(documents, recent)
	}
	if err := p.crossCheck(ctx, corpus); err != nil {
		w.close()
		p.wasm = nil
		return err
	}
	p.crossChecked = before + len(corpus)
	if !checked && p.uncacheable == "" {
		crossChecked.put(key, max(len(corpus)-len(recent), 0)) // the data's part
	}
	return nil
}

// crossChecked remembers, per policy files and query, how many calls of
// the corpus derived from the data the Wasm build decided as topdown does
// (the check takes ~100 ms with the shipped data, ~650 ms under the race
// detector), for loads of the same files in this process: a Caddy reload
// that changed another setting, a second site's gate, each gate a test
// starts. Differences are never remembered.
var crossChecked = newMemo[int](8)

// crossCheck decides each call of corpus with both evaluators, on a few
// CPUs at once (both are safe for concurrent use; a reload waits for it).
// It stops at the first difference (in the decision, or in whether it is
// an error) and returns it, with any another worker found meanwhile.
func (p *prepared) crossCheck(ctx context.Context, corpus []Input) error {
	workers := min(runtime.GOMAXPROCS(0), crossCheckWorkers, max(len(corpus), 1))
	errs := make([]error, workers)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(corpus) {
					return
				}
				if err := p.crossCheckOne(ctx, &corpus[i]); err != nil {
					errs[w] = fmt.Errorf("call %d of %d: %w", i+1, len(corpus), err)
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// crossCheckWorkers bounds the CPUs a load's cross-check takes.
const crossCheckWorkers = 4

// crossCheckOne compares both evaluators on one call, both queries.
func (p *prepared) crossCheckOne(ctx context.Context, in *Input) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wasm cross-check interrupted: %w", err)
	}
	want, wantErr := p.evaluateTopdown(ctx, in, nil)
	got, gotErr := p.evaluateWasm(ctx, in, nil)
	if err := compareOutcomes("decision", in, want, wantErr, got, gotErr); err != nil || p.tool == nil {
		return err
	}
	want, wantErr = p.evaluateToolTopdown(ctx, in, nil)
	got, gotErr = p.evaluateToolWasm(ctx, in, nil)
	return compareOutcomes("tool gate", in, want, wantErr, got, gotErr)
}

// compareOutcomes wants the same decision, or an error from both (whose
// wording differs between the evaluators; either one denies). A call the
// Wasm module could not complete (an abort such as a rule conflict) is
// refused even when topdown errs too: each such call would rebuild a Wasm
// instance from the data image (milliseconds, ~90 ms with 10,000 agents)
// where topdown spends what a decision costs, so that policy stays on
// topdown.
func compareOutcomes(what string, in *Input, want Decision, wantErr error, got Decision, gotErr error) error {
	switch {
	case wasmeval.Failed(gotErr):
		return fmt.Errorf("wasm evaluation fails (%s) on %s: %v", what, describeCall(in), gotErr)
	case wantErr != nil || gotErr != nil:
		if wantErr != nil && gotErr != nil {
			return nil
		}
	case reflect.DeepEqual(withoutResult(want), withoutResult(got)):
		return nil
	}
	return mismatch(what, in, want, wantErr, got, gotErr)
}

// withoutResult is d without the policy's raw result, which each evaluator
// holds in its own form (a term, JSON bytes): the decisions read from them
// are what must agree.
func withoutResult(d Decision) Decision {
	d.result = nil
	return d
}

// mismatch describes a difference for the load log: the call (no secret
// is ever part of an Input) and both outcomes.
func mismatch(what string, in *Input, want Decision, wantErr error, got Decision, gotErr error) error {
	return fmt.Errorf("wasm decides differently from topdown (%s) on %s: topdown %s, wasm %s",
		what, describeCall(in), describeOutcome(want, wantErr), describeOutcome(got, gotErr))
}

func describeCall(in *Input) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s) by %s %q", in.Endpoint, in.Tool, in.Action, in.Caller.Type, in.Caller.ID)
	if in.Scope != nil {
		fmt.Fprintf(&b, " scope %+v", *in.Scope)
	}
	if in.Session != nil {
		fmt.Fprintf(&b, " session scope %+v", in.Session.Scope)
	}
	if len(in.Pages) > 0 {
		fmt.Fprintf(&b, " pages %q", in.Pages)
	}
	if in.Page != nil {
		fmt.Fprintf(&b, " page %+v", *in.Page)
	}
	return b.String()
}

func describeOutcome(d Decision, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%+v", d)
}

// recentInputs are the inputs of the calls the serving revision answered
// most recently, for the next revision's cross-check.
func (e *Engine) recentInputs(n int) []Input {
	serving := e.current.Load()
	if serving == nil || serving.cache == nil {
		return nil
	}
	calls := serving.cache.recent(n)
	inputs := make([]Input, len(calls))
	for i := range calls {
		inputs[i] = calls[i].input
	}
	return inputs
}

// logEvaluator says which evaluator decides for p and, when auto kept
// topdown, why.
func (e *Engine) logEvaluator(p *prepared) {
	switch {
	case p.topdownReason != "":
		e.logger.Warn("policy evaluator: deciding with topdown, as the policy did not qualify for wasm",
			zap.String("revision", p.revision), zap.String("reason", p.topdownReason))
	case p.wasm != nil && p.crossChecked > 0:
		e.logger.Info("policy evaluator: deciding with wasm, which decided like topdown on every call checked",
			zap.String("revision", p.revision), zap.Int("calls_checked", p.crossChecked))
	}
}
