package integration

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

const tokenQuestion = `{"question":"How do I configure agent memory with Redis?"}`

// tokenBudgetPolicy is the team's policy with agents' token budget set to
// budgets (period: tokens) and no agent override.
func tokenBudgetPolicy(t *testing.T, budgets map[string]any) string {
	t.Helper()
	return policyWithData(t, func(data map[string]any) {
		tokens, ok := data["limits"].(map[string]any)["tokens"].(map[string]any)
		if !ok || tokens["agents"] == nil {
			t.Fatalf("rego/data.json ships no agents' token budget: %v", data["limits"])
		}
		tokens["agents"] = budgets
	})
}

// metricValue is the value of the /metrics series named exactly series
// (name{labels in Prometheus' sorted order}), 0 when absent.
func metricValue(t *testing.T, g *gate, series string) float64 {
	t.Helper()
	r := g.do(newGet(t, g.url+"/metrics"))
	for _, l := range strings.Split(string(r.Body), "\n") {
		if rest, ok := strings.CutPrefix(l, series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return v
		}
	}
	return 0
}

// An ask's tokens are in its audit record (estimated: the development
// RAGFlow, like RAGFlow's native completion, reports no usage) and in
// caddy_wikigate_tokens_total by tool and caller type, and by caller with
// token_metrics_per_caller.
func TestAskCountsTokensInAuditAndMetrics(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: "token_metrics_per_caller"})
	byType := func(dir string) string {
		return fmt.Sprintf(`caddy_wikigate_tokens_total{caller_type="agent",direction="%s",estimated="true",tool="ask"}`, dir)
	}
	byCaller := func(dir string) string {
		return fmt.Sprintf(`caddy_wikigate_caller_tokens_total{caller_id="kunora-coding-agent",caller_type="agent",direction="%s"}`, dir)
	}
	inBefore, outBefore := metricValue(t, g, byType("input")), metricValue(t, g, byType("output"))
	callerBefore := metricValue(t, g, byCaller("input"))

	r := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), tokenQuestion)
	if r.Status != 200 || len(r.json(t)["citations"].([]any)) == 0 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	id := r.json(t)["audit"].(map[string]any)["requestId"].(string)
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == id })
	tokens, _ := rec["tokens"].(map[string]any)
	in, _ := tokens["input"].(float64)
	out, _ := tokens["output"].(float64)
	if in < 100 || out < 5 || tokens["estimated"] != true {
		t.Fatalf("audit tokens = %v, want estimated input (the prompt holds the chunks) and output counts", rec["tokens"])
	}
	if got := metricValue(t, g, byType("input")) - inBefore; got != in {
		t.Errorf("%s grew by %v, the record says %v", byType("input"), got, in)
	}
	if got := metricValue(t, g, byType("output")) - outBefore; got != out {
		t.Errorf("%s grew by %v, the record says %v", byType("output"), got, out)
	}
	if got := metricValue(t, g, byCaller("input")) - callerBefore; got != in {
		t.Errorf("%s grew by %v, the record says %v", byCaller("input"), got, in)
	}

	search := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if search.Status != 200 {
		t.Fatalf("search: %d %s", search.Status, search.Body)
	}
	sid := search.Header.Get("X-Request-Id")
	if srec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == sid }); srec["tokens"] != nil {
		t.Errorf("a search generated nothing, yet its record has tokens: %v", srec["tokens"])
	}
}

// Without token_metrics_per_caller no series names a caller.
func TestTokenMetricsNameNoCallerByDefault(t *testing.T) {
	g, _ := loggedGate(t, gateOptions{})
	if r := g.post("/agent/tools/ask", bearer(agentToken(t, "docs-maintainer-agent")), tokenQuestion); r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	body := string(g.do(newGet(t, g.url+"/metrics")).Body)
	if strings.Contains(body, `caller_id="docs-maintainer-agent"`) {
		t.Fatal("a caller's id is a metrics label although token_metrics_per_caller is off")
	}
}

// A spent token budget refuses the next ask with 429 rate_limited, the
// wait until the window ends in Retry-After and the budget in
// RateLimit-Policy, before any backend is called; the ask that spent it
// was answered, and another agent's budget is its own.
func TestTokenBudgetRefusesOnceSpent(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: tokenBudgetPolicy(t, map[string]any{"hour": 100})})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	if r := g.post("/agent/tools/ask", coding, tokenQuestion); r.Status != 200 {
		t.Fatalf("the first ask (budget untouched) was refused: %d %s", r.Status, r.Body)
	}
	before := g.backendRequests(g.ragURL, ragflowKey)
	r := g.post("/agent/tools/ask", coding, tokenQuestion)
	if r.Status != 429 || r.errorCode(t) != "rate_limited" {
		t.Fatalf("ask over the token budget: %d %s", r.Status, r.Body)
	}
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 3500 || retry > 3600 {
		t.Errorf("Retry-After %q, want the rest of the hour's window", r.Header.Get("Retry-After"))
	}
	if !strings.Contains(r.Header.Get("RateLimit-Policy"), `"tokens-hour";q=100;w=3600`) ||
		!strings.Contains(r.Header.Get("RateLimit"), `"tokens-hour";r=0;t=`) {
		t.Errorf("429 RateLimit fields: %v", r.Header)
	}
	if !strings.Contains(errorMessage(t, r), "token budget tokens-hour") {
		t.Errorf("message does not name the token budget: %s", r.Body)
	}
	if after := g.backendRequests(g.ragURL, ragflowKey); after != before {
		t.Errorf("the refused ask reached RAGFlow (%d requests, was %d)", after, before)
	}
	if s := g.post("/agent/tools/search", coding, `{"question":"agent memory"}`); s.Status != 200 {
		t.Errorf("a search (no generation) was refused by the token budget: %d %s", s.Status, s.Body)
	}
	if other := g.post("/agent/tools/ask", bearer(agentToken(t, "docs-maintainer-agent")), tokenQuestion); other.Status != 200 {
		t.Errorf("another agent's token budget is its own: %d %s", other.Status, other.Body)
	}
}

// The tokens an ask through one gate spent count against the caller's
// budget on the others (Redis holds it): docs-maintainer-agent, at 100
// tokens an hour (scaleoutPolicy), asks once through gate-1 and is then
// refused by gate-2 and gate-3.
func (c *cluster) tokenBudgetAcrossGates(t *testing.T) {
	auth := bearer(agentToken(t, "docs-maintainer-agent"))
	if r := c.gates[0].post("/agent/tools/ask", auth, tokenQuestion); r.Status != 200 {
		t.Fatalf("the first ask through gate-1: %d %s", r.Status, r.Body)
	}
	for _, g := range c.gates[1:] {
		r := g.post("/agent/tools/ask", auth, tokenQuestion)
		if r.Status != 429 || r.errorCode(t) != "rate_limited" || r.Header.Get("Retry-After") == "" ||
			!strings.Contains(r.Header.Get("RateLimit-Policy"), `"tokens-hour";q=100;w=3600`) {
			t.Fatalf("ask through %s after gate-1 spent the token budget: %d %v %s", r.Header.Get(servedBy), r.Status, r.Header, r.Body)
		}
	}
}
