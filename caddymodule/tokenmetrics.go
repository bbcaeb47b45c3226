package caddymodule

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/gateway"
)

// tokenMetrics count generation tokens (docs/operators.md, Token accounting and
// budgets). tokens has bounded labels only: the tool, the caller's type,
// the direction (input, output) and whether the count is the backend's
// own or the gate's estimate. callerTokens adds the caller's id, a label
// as many-valued as the callers, so it is filled only where an operator
// turned token_metrics_per_caller on.
type tokenMetrics struct {
	tokens       *prometheus.CounterVec
	callerTokens *prometheus.CounterVec
}

func newTokenMetrics(ns, sub string) *tokenMetrics {
	return &tokenMetrics{
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "tokens_total",
			Help: "Generation tokens by tool, caller type, direction (input, output) and estimated (true when the backend reported no usage and the gate estimated it).",
		}, []string{"tool", "caller_type", "direction", "estimated"}),
		callerTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "caller_tokens_total",
			Help: "Generation tokens by caller (type and id) and direction; only with token_metrics_per_caller (one series per caller).",
		}, []string{"caller_type", "caller_id", "direction"}),
	}
}

func (t *tokenMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{t.tokens, t.callerTokens}
}

// observe counts a finished call's tokens by tool and caller type.
func (t *tokenMetrics) observe(rec *audit.Record) {
	if !rec.Tokens.Generated() {
		return
	}
	est := strconv.FormatBool(rec.Tokens.Estimated)
	t.tokens.WithLabelValues(rec.Tool, rec.CallerType, "input", est).Add(float64(rec.Tokens.Input))
	t.tokens.WithLabelValues(rec.Tool, rec.CallerType, "output", est).Add(float64(rec.Tokens.Output))
}

// observeCaller counts a finished call's tokens by caller.
func (t *tokenMetrics) observeCaller(rec *audit.Record) {
	if !rec.Tokens.Generated() {
		return
	}
	t.callerTokens.WithLabelValues(rec.CallerType, rec.CallerID, "input").Add(float64(rec.Tokens.Input))
	t.callerTokens.WithLabelValues(rec.CallerType, rec.CallerID, "output").Add(float64(rec.Tokens.Output))
}

// perCallerTokens is the observer of a gate with token_metrics_per_caller:
// everything the process's metrics observe, plus tokens by caller.
type perCallerTokens struct{ *metrics }

func (p perCallerTokens) Observe(rec *audit.Record) {
	p.metrics.Observe(rec)
	p.tok.observeCaller(rec)
}

// observer is the gate's call observer under h's metrics options.
func (h *Handler) observer(m *metrics) gateway.Observer {
	if h.TokenMetricsPerCaller {
		return perCallerTokens{m}
	}
	return m
}
