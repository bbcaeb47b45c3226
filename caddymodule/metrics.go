package caddymodule

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/policies"
)

var _ policies.DecisionObserver = (*metrics)(nil)

// metrics are created once per process and registered into each config's
// registry (caddy-ratelimit's pattern), so a reload keeps counting. Every
// label comes from a bounded set: the route's tool, the call's result (ok,
// answered, no_answer, created, merged, replayed, client_closed or a
// protocol error code) and the backend's name. Never a caller, token or
// address.
type metrics struct {
	calls        *prometheus.CounterVec
	callDuration *prometheus.HistogramVec
	backend      *prometheus.HistogramVec
	dropped      *prometheus.CounterVec
	// unsafeURLs counts backend results whose url was removed (safeurl).
	unsafeURLs *prometheus.CounterVec
	// reloads counts policy reloads by outcome (policies.Reload*);
	// revision is 1 for the policy revision last loaded (a bounded label:
	// one revision at a time).
	reloads  *prometheus.CounterVec
	revision *prometheus.GaugeVec
	// decisions times every policy decision by query (decision,
	// tool_decision); decisionCache counts them by whether the decision
	// cache answered (hit, miss): the hit ratio is hit / (hit + miss).
	decisions     *prometheus.HistogramVec
	decisionCache *prometheus.CounterVec
	// series holds both queries' series, resolved once: PolicyDecision runs
	// twice per call and should not hash its labels each time.
	series map[string]decisionSeries
	// decisionLogDropped counts decision-log events dropped because a
	// buffer was full (the writer's or the upload's).
	decisionLogDropped prometheus.Counter
	// tok counts generation tokens (tokenmetrics.go).
	tok *tokenMetrics
}

var (
	metricsOnce sync.Once
	gateMetrics *metrics
)

func newMetrics() *metrics {
	m := newCollectors()
	m.series = map[string]decisionSeries{}
	for _, path := range []string{policies.PathDecision, policies.PathToolDecision} {
		m.series[path] = m.seriesOf(path)
	}
	return m
}

func newCollectors() *metrics {
	const ns, sub = "caddy", "wikigate"
	return &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "calls_total",
			Help: "Calls to the gate by tool and result (ok, answered, no_answer, created, merged, replayed, client_closed when the caller hung up, or the protocol error code).",
		}, []string{"tool", "result"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "call_duration_seconds",
			Help:    "Time the gate spent on a call, backends included.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"tool"}),
		backend: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "backend_duration_seconds",
			Help:    "Latency of backend calls by backend and outcome (ok, error, or client_closed when the caller hung up during the call).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"backend", "outcome"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "dropped_results_total",
			Help: "Backend results dropped by the response-side scope check.",
		}, []string{"tool"}),
		unsafeURLs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "unsafe_urls_dropped_total",
			Help: "Backend results whose url the gate removed because it was not an http(s) URL or a relative path (javascript:, data:, protocol-relative, ...).",
		}, []string{"tool"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "policy_reloads_total",
			Help: "Policy reloads by outcome: activated, invalid, tests_failed, refused (bundle signature or format), unavailable (bundle server).",
		}, []string{"outcome"}),
		revision: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Subsystem: sub, Name: "policy_revision_info",
			Help: "1 for the policy revision serving (the bundle's revision or the policy files' hash) and the evaluator deciding for it (wasm, or topdown: under evaluator auto, a policy that did not qualify for wasm).",
		}, []string{"revision", "evaluator"}),
		decisions: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "policy_decision_duration_seconds",
			Help:    "Time of one policy decision (evaluation or decision-cache lookup) by query: decision, tool_decision.",
			Buckets: prometheus.ExponentialBuckets(0.000001, 2, 18), // 1µs .. 131ms
		}, []string{"query"}),
		decisionCache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "policy_decision_cache_total",
			Help: "Policy decisions by query and whether the decision cache answered (hit) or the policy was evaluated (miss).",
		}, []string{"query", "result"}),
		decisionLogDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "decision_log_dropped_total",
			Help: "Decision-log events dropped because a buffer was full (the log writer's, or the upload's while the service is slow or down).",
		}),
		tok: newTokenMetrics(ns, sub),
	}
}

// decisionSeries are one query's latency histogram and cache counters.
type decisionSeries struct {
	took      prometheus.Observer
	hit, miss prometheus.Counter
}

func (m *metrics) seriesOf(path string) decisionSeries {
	query := strings.TrimPrefix(path, "wikigate/")
	return decisionSeries{took: m.decisions.WithLabelValues(query),
		hit: m.decisionCache.WithLabelValues(query, "hit"), miss: m.decisionCache.WithLabelValues(query, "miss")}
}

// PolicyDecision times one decision and counts whether the cache answered
// it (policies.DecisionObserver).
func (m *metrics) PolicyDecision(path string, cached bool, took time.Duration) {
	s, ok := m.series[path]
	if !ok {
		s = m.seriesOf(path)
	}
	s.took.Observe(took.Seconds())
	if cached {
		s.hit.Inc()
	} else {
		s.miss.Inc()
	}
}

// DecisionLogDropped counts dropped decision-log events
// (policies.DecisionObserver).
func (m *metrics) DecisionLogDropped(n int) { m.decisionLogDropped.Add(float64(n)) }

// PolicyReload counts one policy reload (policies.ReloadObserver).
func (m *metrics) PolicyReload(outcome string) { m.reloads.WithLabelValues(outcome).Inc() }

// PolicyRevision makes revision, decided by evaluator, the one serving.
func (m *metrics) PolicyRevision(revision, evaluator string) {
	m.revision.Reset()
	m.revision.WithLabelValues(revision, evaluator).Set(1)
}

// registerMetrics returns the process's collectors, registered into this
// config's registry.
func registerMetrics(ctx caddy.Context) (*metrics, error) {
	metricsOnce.Do(func() { gateMetrics = newMetrics() })
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return gateMetrics, nil
	}
	for _, c := range append([]prometheus.Collector{gateMetrics.calls, gateMetrics.callDuration, gateMetrics.backend, gateMetrics.dropped, gateMetrics.unsafeURLs,
		gateMetrics.reloads, gateMetrics.revision, gateMetrics.decisions, gateMetrics.decisionCache,
		gateMetrics.decisionLogDropped}, gateMetrics.tok.collectors()...) {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return nil, err
			}
		}
	}
	return gateMetrics, nil
}

// Observe records one finished call.
func (m *metrics) Observe(rec *audit.Record) {
	result := rec.Result
	if result == "" {
		result = "unknown"
	}
	m.calls.WithLabelValues(rec.Tool, result).Inc()
	m.callDuration.WithLabelValues(rec.Tool).Observe(time.Since(rec.Start).Seconds())
	for _, b := range rec.Backends {
		m.backend.WithLabelValues(b.Name, backendOutcome(rec, b)).Observe(b.Latency.Seconds())
	}
	if rec.Dropped > 0 {
		m.dropped.WithLabelValues(rec.Tool).Add(float64(rec.Dropped))
	}
	if rec.UnsafeURLsDropped > 0 {
		m.unsafeURLs.WithLabelValues(rec.Tool).Add(float64(rec.UnsafeURLsDropped))
	}
	m.tok.observe(rec)
}

// backendOutcome labels a backend call: a call that failed while its caller
// hung up was cut short, which says nothing about the backend.
func backendOutcome(rec *audit.Record, b audit.BackendCall) string {
	switch {
	case b.Error == "":
		return "ok"
	case rec.Result == audit.ResultClientClosed:
		return audit.ResultClientClosed
	}
	return "error"
}
