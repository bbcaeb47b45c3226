package caddymodule

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wikigate/wikigate/audit"
)

func TestMetricsObserveCalls(t *testing.T) {
	m := newMetrics()
	rec := audit.New("r1", "/agent/tools/search", time.Now())
	rec.Tool, rec.Result, rec.Dropped = "search", "ok", 2
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
	if n := testutil.CollectAndCount(m.backend); n != 1 {
		t.Errorf("backend series = %d, want 1", n)
	}
}
