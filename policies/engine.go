// Package policies embeds OPA: it loads the security team's Rego policies and
// data from a directory, prepares the decision query once per load, decides
// each call, and swaps in edited policies without a restart (docs/security.md).
//
// Every failure denies: an engine error, an undefined or malformed decision
// is returned as an error, and the caller must treat any error as a deny.
package policies

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/topdown"
	"go.uber.org/zap"
)

// DefaultQuery is the decision the gateway asks for.
const DefaultQuery = "data.wikigate.decision"

// defaultDebounce lets an editor's save (write, rename, chmod) settle into
// one reload.
const defaultDebounce = 200 * time.Millisecond

// Options configure an Engine.
type Options struct {
	Dir    string      // directory holding *.rego and data.json / data.yaml (recursive); *_test.rego excluded
	Query  string      // default DefaultQuery
	Logger *zap.Logger // nil → zap.NewNop()
	// CacheSize bounds the decision cache in bytes: 0 = DefaultCacheSize,
	// negative turns it off (every call evaluates the policy). A policy that
	// calls a nondeterministic built-in (time.now_ns, http.send...) is never
	// cached.
	CacheSize int
	// SkipTests activates a policy without running its *_test.rego
	// (`require_tests off`). By default a candidate serves only when all
	// its tests pass.
	SkipTests bool
	// Bundle, when set, loads the policy from an OPA bundle instead of Dir.
	Bundle *BundleOptions
	// Observer is told about reloads and revisions (metrics); nil: nobody.
	Observer ReloadObserver
	// DecisionLog, when set, writes every decision as an OPA decision-log
	// event until New's ctx is done.
	DecisionLog *DecisionLogOptions
	// Evaluator decides calls: EvaluatorAuto ("" too: Wasm when the policy
	// compiles to it and decides a corpus of calls as topdown does, else
	// topdown), EvaluatorTopdown, or EvaluatorWasm (the policy compiled to
	// Wasm at every load; a policy that does not compile to Wasm or fails
	// the same cross-check is refused like one that does not compile at
	// all). Policy tests run on topdown either way.
	Evaluator string
	// RevisionsDir, when set, keeps the sources of the last KeepRevisions
	// revisions served (DefaultKeepRevisions when 0) there, one folder per
	// revision, so `wikigate policy explain` decides again with the policy
	// that made a recorded decision (kept.go).
	RevisionsDir  string
	KeepRevisions int
}

// Engine decides calls with the currently loaded policy. It is safe for
// concurrent use: a prepared query is shared by all requests (opa:
// docs/docs/integration.md) and replaced atomically on reload.
type Engine struct {
	dir       string // the watched policy directory; "" for a bundle
	src       source
	query     string
	logger    *zap.Logger
	debounce  time.Duration
	cacheSize int
	evaluator string // EvaluatorAuto, EvaluatorTopdown or EvaluatorWasm
	runTests  bool
	observer  ReloadObserver
	decisions DecisionObserver
	dlog      *decisionLog // nil: decision logs off
	pollMin   time.Duration
	pollMax   time.Duration
	// decisionLogOn: Wasm decisions keep the policy's result for the log.
	decisionLogOn bool
	kept          *keptRevisions // nil: sources not kept

	current atomic.Pointer[prepared]

	reloadMu sync.Mutex // serializes reloads so an older build never replaces a newer one
	failures atomic.Uint64
	errMu    sync.Mutex
	lastErr  error
	// failedDigest is the digest of the last refused candidate, so a poller
	// that sees it again does not refuse it again (guarded by reloadMu).
	failedDigest string
}

// New loads and prepares the policy in opts.Dir (or opts.Bundle) and runs
// its tests. A broken policy fails with the compiler's message and a
// policy whose tests fail with their names, so a bad start-up
// configuration never serves.
func New(ctx context.Context, opts Options) (*Engine, error) {
	e, err := newEngine(opts)
	if err != nil {
		return nil, err
	}
	c, err := e.src.read(ctx)
	if err == nil && c == nil {
		err = errors.New("the bundle server answered 304 to a first request")
	}
	if err != nil {
		return nil, fmt.Errorf("policy from %s: %w", e.src, err)
	}
	p, err := c.build(ctx, e.buildOptions())
	if err != nil {
		return nil, fmt.Errorf("policy from %s: %w", e.src, err)
	}
	e.current.Store(p)
	e.keep(p)
	e.dlog = startDecisionLog(ctx, opts.DecisionLog, e.decisions, e.logger)
	if c.activated != nil {
		c.activated()
	}
	e.logger.Info("policy loaded", zap.Stringer("source", e.src), zap.String("revision", p.revision),
		zap.Bool("tests_run", e.testsRan(c)))
	e.observer.PolicyRevision(p.revision, p.evaluatorName())
	e.logCacheOff(p)
	e.logEvaluator(p)
	e.logToolGateMissing(p)
	return e, nil
}

// newEngine applies opts' defaults.
func newEngine(opts Options) (*Engine, error) {
	if opts.Dir == "" && opts.Bundle == nil {
		return nil, errors.New("policy dir is required")
	}
	if opts.Bundle != nil && opts.Bundle.Source == "" {
		return nil, errors.New("policy bundle source is required")
	}
	evaluator, err := checkEvaluator(opts.Evaluator)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		evaluator: evaluator,
		src:       newSource(opts),
		query:     opts.Query,
		logger:    opts.Logger,
		debounce:  defaultDebounce,
		cacheSize: opts.CacheSize,
		runTests:  !opts.SkipTests,
		observer:  opts.Observer,
		pollMin:   defaultPollMin,
		pollMax:   defaultPollMax,
	}
	if opts.Bundle == nil {
		e.dir = opts.Dir
	} else {
		e.pollMin, e.pollMax = pollBounds(opts.Bundle.PollMin, opts.Bundle.PollMax)
	}
	if e.query == "" {
		e.query = DefaultQuery
	}
	if e.logger == nil {
		e.logger = zap.NewNop()
	}
	if e.observer == nil {
		e.observer = nopObserver{}
	}
	e.decisions = decisionObserverOf(e.observer)
	e.decisionLogOn = opts.DecisionLog != nil && (opts.DecisionLog.Logger != nil || opts.DecisionLog.Upload != nil)
	if opts.RevisionsDir != "" {
		e.kept = &keptRevisions{dir: opts.RevisionsDir, keep: opts.KeepRevisions}
	}
	return e, nil
}

// logCacheOff says why a policy's decisions are not cached when the
// operator did not ask for that.
func (e *Engine) logCacheOff(p *prepared) {
	if p.uncacheable != "" && e.cacheSize >= 0 {
		e.logger.Info("policy decision cache off: the policy calls a nondeterministic built-in",
			zap.String("revision", p.revision), zap.String("builtin", p.uncacheable))
	}
}

// Decide evaluates the policy for one call, or answers from the decision
// cache when the same policy already decided the same input. Any error means
// deny; the returned Decision then still names the policy revision for the
// audit record. The Decision is the caller's own copy. With decision logs
// on, the decision is queued as an event (never waiting for the writer).
func (e *Engine) Decide(ctx context.Context, in Input) (Decision, error) {
	st := e.startDecision()
	d, err := e.decide(ctx, in, &st)
	e.finishDecision(ctx, PathDecision, &in, d, err, &st)
	return d, err
}

func (e *Engine) decide(ctx context.Context, in Input, st *decisionStats) (Decision, error) {
	p := e.current.Load()
	denied := Decision{Revision: p.revision, Digest: p.digest}
	if err := ctx.Err(); err != nil {
		return denied, fmt.Errorf("decide: %w", err)
	}
	var key cacheKey
	if p.cache != nil {
		key = keyFor(p.revision, &in)
		if d, ok := p.cache.get(key); ok {
			st.cached = true
			return d, nil
		}
	}
	d, err := p.evaluate(ctx, &in, st.eval)
	if err != nil {
		return denied, err
	}
	p.attribute(ctx, &p.query, &in, &d)
	if p.cache != nil {
		p.cache.put(key, d, &cachedCall{input: in})
	}
	return d, nil
}

// evaluate runs the prepared query on in, recording OPA's metrics in m
// when it is set. Cancellation of ctx stops the
// evaluation through a cancel flag set by context.AfterFunc, which costs
// nothing until ctx is done (rego's default watches ctx with a goroutine
// per evaluation).
func (p *prepared) evaluate(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	if p.wasm != nil {
		return p.evaluateWasm(ctx, in, m)
	}
	return p.evaluateTopdown(ctx, in, m)
}

// evaluateTopdown is evaluate on OPA's topdown evaluator.
func (p *prepared) evaluateTopdown(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	cancel := topdown.NewCancel()
	stop := context.AfterFunc(ctx, cancel.Cancel)
	defer stop()
	rs, err := p.query.Eval(ctx, evalOptions(in, cancel, m)...)
	if err != nil {
		return Decision{}, fmt.Errorf("evaluate policy %s: %w", p.revision, err)
	}
	d, err := parseResult(rs)
	if err != nil {
		return Decision{}, fmt.Errorf("policy %s: %w", p.revision, err)
	}
	d.Revision, d.Digest = p.revision, p.digest
	if p.keepResult {
		d.result = rs[0].Expressions[0].Value
	}
	return d, nil
}

// Evaluator names the evaluator deciding for the policy now serving:
// EvaluatorWasm or EvaluatorTopdown (under EvaluatorAuto, whichever the
// load chose).
func (e *Engine) Evaluator() string { return e.current.Load().evaluatorName() }

// evaluatorName is the evaluator deciding for p.
func (p *prepared) evaluatorName() string {
	if p.wasm != nil {
		return EvaluatorWasm
	}
	return EvaluatorTopdown
}

// Revision names the policy now serving: its bundle's revision, or a short
// hash of the policy directory's files.
func (e *Engine) Revision() string {
	return e.current.Load().revision
}

// ReloadFailures counts reloads that failed since New.
func (e *Engine) ReloadFailures() uint64 {
	return e.failures.Load()
}

// LastReloadError is the error of the latest reload; nil once a reload
// succeeds.
func (e *Engine) LastReloadError() error {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	return e.lastErr
}

func (e *Engine) setLastReloadError(err error) {
	e.errMu.Lock()
	e.lastErr = err
	e.errMu.Unlock()
}
