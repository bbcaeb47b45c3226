package policies

import (
	"context"
	"errors"
	"time"

	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Reload outcomes, the label values of the reload metric. A reload that
// finds the serving policy unchanged is not an outcome: pollers would count
// it every few seconds.
const (
	ReloadActivated   = "activated"    // a new revision serves
	ReloadInvalid     = "invalid"      // it did not read, parse or compile
	ReloadTestsFailed = "tests_failed" // it compiled but its own tests failed
	ReloadRefused     = "refused"      // a bundle with a bad signature or format
	ReloadUnavailable = "unavailable"  // the bundle server could not be reached
)

// ReloadObserver is told about reloads (metrics). Calls come from the
// goroutine that reloads, never concurrently for one engine.
type ReloadObserver interface {
	// PolicyReload counts one reload by outcome.
	PolicyReload(outcome string)
	// PolicyRevision names the revision now serving (at load and after
	// each activation) and the evaluator deciding for it (EvaluatorWasm or
	// EvaluatorTopdown: under EvaluatorAuto a policy that did not qualify
	// for Wasm shows here, for an alert).
	PolicyRevision(revision, evaluator string)
}

type nopObserver struct{}

func (nopObserver) PolicyReload(string)           {}
func (nopObserver) PolicyRevision(string, string) {}

// outcomeOf classifies a failed reload.
func outcomeOf(err error) string {
	var tf *TestsFailedError
	var un *UnavailableError
	switch {
	case errors.As(err, &tf):
		return ReloadTestsFailed
	case errors.As(err, &un):
		return ReloadUnavailable
	case errors.Is(err, ErrBundleRefused):
		return ReloadRefused
	}
	return ReloadInvalid
}

// DecisionObserver is told about every decision (metrics). An Observer
// that implements it gets the calls; they come from the requests' own
// goroutines, concurrently, so they must be cheap and safe.
type DecisionObserver interface {
	// PolicyDecision counts one decision of path (PathDecision or
	// PathToolDecision): whether the decision cache answered it, and how
	// long it took, evaluation or cache lookup included.
	PolicyDecision(path string, cached bool, took time.Duration)
	// DecisionLogDropped counts decision-log events dropped because a
	// buffer was full.
	DecisionLogDropped(n int)
}

func (nopObserver) PolicyDecision(string, bool, time.Duration) {}
func (nopObserver) DecisionLogDropped(int)                     {}

// decisionObserverOf is o's DecisionObserver, or nobody.
func decisionObserverOf(o ReloadObserver) DecisionObserver {
	if d, ok := o.(DecisionObserver); ok {
		return d
	}
	return nopObserver{}
}

// decisionStats follows one decision from Decide's start to its end, for
// the metrics and the decision-log event.
type decisionStats struct {
	start  time.Time
	cached bool
	// eval collects OPA's own evaluation metrics (timer_rego_query_eval_ns
	// ...) for the decision-log event; nil when decision logs are off, so
	// that a decision without them costs no metrics.
	eval metrics.Metrics
}

func (e *Engine) startDecision() decisionStats {
	st := decisionStats{start: time.Now()}
	if e.dlog != nil {
		st.eval = metrics.New()
	}
	return st
}

// finishDecision reports a decision to the observer and the decision log.
func (e *Engine) finishDecision(ctx context.Context, path string, in *Input, d Decision, err error, st *decisionStats) {
	took := time.Since(st.start)
	e.decisions.PolicyDecision(path, st.cached, took)
	if e.dlog != nil {
		e.dlog.record(ctx, path, in, d, err, st.eventMetrics(took))
	}
}

// eventMetrics are the event's metrics as OPA names them: its evaluation
// timers (none when the decision cache answered), the whole decision's
// time, and whether the cache answered.
func (st *decisionStats) eventMetrics(took time.Duration) map[string]any {
	m := st.eval.All()
	m["timer_wikigate_decide_ns"] = took.Nanoseconds()
	if st.cached {
		m["counter_wikigate_decision_cache_hit"] = 1
	}
	return m
}

// evalOptions are the options of one evaluation: its cancel flag, and
// OPA's metrics when the decision log wants them. Without them OPA would
// make (and time into) a fresh metrics object per evaluation that nobody
// reads, so it gets the no-op one.
func evalOptions(in *Input, cancel topdown.Cancel, m metrics.Metrics) []rego.EvalOption {
	if m == nil {
		m = metrics.NoOp()
	}
	return []rego.EvalOption{rego.EvalParsedInput(in.toAST()), rego.EvalExternalCancel(cancel), rego.EvalMetrics(m)}
}
