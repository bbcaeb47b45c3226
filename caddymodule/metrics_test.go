package caddymodule

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/policies"
)

func TestMetricsObserveCalls(t *testing.T) {
	m := newMetrics()
	rec := audit.New("r1", "/agent/tools/search", time.Now())
	rec.Tool, rec.Result, rec.Dropped, rec.UnsafeURLsDropped = "search", "ok", 2, 3
	rec.AddBackend("meilisearch", 200, 3*time.Millisecond, nil)
	m.Observe(rec)
	denied := audit.New("r2", "/agent/tools/ask", time.Now())
	denied.Tool, denied.Result = "ask", "forbidden_scope"
	m.Observe(denied)

	if got := testutil.ToFloat64(m.calls.WithLabelValues("search", "ok")); got != 1 {
		t.Errorf("search ok calls = %v", got)
	}
	if got := testutil.ToFloat64(m.calls.WithLabelValues("ask", "forbidden_scope")); got != 1 {
		t.Errorf("denied ask calls = %v", got)
	}
	if got := testutil.ToFloat64(m.dropped.WithLabelValues("search")); got != 2 {
		t.Errorf("dropped = %v", got)
	}
	if got := testutil.ToFloat64(m.unsafeURLs.WithLabelValues("search")); got != 3 {
		t.Errorf("unsafe urls dropped = %v", got)
	}
	if n := testutil.CollectAndCount(m.backend); n != 1 {
		t.Errorf("backend series = %d, want 1", n)
	}
}

// TestMetricsCountClientCancelsApart: a caller hanging up is its own result,
// and the backend call it cut short is not a backend error.
func TestMetricsCountClientCancelsApart(t *testing.T) {
	m := newMetrics()
	rec := audit.New("r1", "/agent/tools/ask", time.Now())
	rec.Tool = "ask"
	rec.AddBackend("ragflow.completion", 0, time.Second, errors.New("context canceled"))
	rec.ClientClosed()
	m.Observe(rec)

	if got := testutil.ToFloat64(m.calls.WithLabelValues("ask", "client_closed")); got != 1 {
		t.Errorf("client_closed calls = %v", got)
	}
	if got := testutil.ToFloat64(m.calls.WithLabelValues("ask", "ragflow_unavailable")); got != 0 {
		t.Errorf("a client cancel counted as ragflow_unavailable")
	}
	if n := testutil.CollectAndCount(m.backend); n != 1 {
		t.Fatalf("backend series = %d, want 1", n)
	}
	if !m.backend.DeleteLabelValues("ragflow.completion", "client_closed") {
		t.Error("the cut-short backend call is not labelled client_closed")
	}
}

// TestMetricsPolicyDecisions: the engine reports each decision to /metrics,
// so a repeated call shows as a decision-cache hit and both are timed.
func TestMetricsPolicyDecisions(t *testing.T) {
	m := newMetrics()
	e, err := policies.New(context.Background(), policies.Options{Dir: "../rego", Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	in := policies.Input{Endpoint: "/agent/tools/search", Tool: "search", Action: "read", SiteMode: "public-read",
		Caller: policies.Caller{Type: "agent", ID: "kunora-coding-agent", Credential: "jwt"}}
	for range 3 {
		if _, err := e.Decide(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.DecideTool(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	hits := testutil.ToFloat64(m.decisionCache.WithLabelValues("decision", "hit"))
	misses := testutil.ToFloat64(m.decisionCache.WithLabelValues("decision", "miss"))
	tool := testutil.ToFloat64(m.decisionCache.WithLabelValues("tool_decision", "miss"))
	if hits != 2 || misses != 1 || tool != 1 {
		t.Errorf("decision cache hit %v miss %v, tool gate miss %v; want 2, 1, 1", hits, misses, tool)
	}
	if n := testutil.CollectAndCount(m.decisions); n != 2 {
		t.Errorf("decision latency series = %d, want one per query", n)
	}
	m.DecisionLogDropped(3)
	if got := testutil.ToFloat64(m.decisionLogDropped); got != 3 {
		t.Errorf("dropped decision-log events = %v", got)
	}
}
