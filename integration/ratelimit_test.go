package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// policyWithData is the team's policy (a copy without its tests) with edit
// applied to data.json's top-level object.
func policyWithData(t *testing.T, edit func(data map[string]any)) string {
	t.Helper()
	dir := copyDir(t, "../rego")
	editJSON(t, filepath.Join(dir, "data.json"), func(v any) any {
		data, ok := v.(map[string]any)
		if !ok {
			t.Fatal("rego/data.json is not an object")
		}
		edit(data)
		return data
	})
	return dir
}

// limitGroup is data.limits[window][group] (as limits.per_minute.agents),
// failing the test when the shipped policy has no such budgets: a test
// that edits them would otherwise run on limits it did not set.
func limitGroup(t *testing.T, data map[string]any, window, group string) map[string]any {
	t.Helper()
	limits, _ := data["limits"].(map[string]any)
	byGroup, _ := limits[window].(map[string]any)
	g, ok := byGroup[group].(map[string]any)
	if !ok {
		t.Fatalf("rego/data.json has no limits.%s.%s", window, group)
	}
	return g
}

// limitedPolicy is the team's policy with every agent's search limited to
// n a minute and anonymous readers' search to n a minute per address.
func limitedPolicy(t *testing.T, n int) string {
	t.Helper()
	return policyWithData(t, func(data map[string]any) {
		limitGroup(t, data, "per_minute", "agents")["search"] = n
		limitGroup(t, data, "per_minute", "anonymous")["search"] = n
	})
}

// unlimitedPolicy is the team's policy without its rate limits, for tests
// of other budgets (the anonymous session store) that need thousands of
// calls from one address within a minute.
func unlimitedPolicy(t *testing.T) string {
	t.Helper()
	return policyWithData(t, func(data map[string]any) { delete(data, "limits") })
}

// The N+1th call within the minute is 429 with Retry-After and the
// RateLimit headers, and reaches no backend.
func TestRateLimitPerCaller(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: limitedPolicy(t, 3)})
	auth := bearer(agentToken(t, "kunora-coding-agent"))
	body := `{"question":"agent memory","limit":5}`
	for i := range 3 {
		if r := g.post("/agent/tools/search", auth, body); r.Status != 200 {
			t.Fatalf("call %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	before := g.backendRequests(g.meiliURL, meiliKey)
	r := g.post("/agent/tools/search", auth, body)
	if r.Status != 429 || r.errorCode(t) != "rate_limited" {
		t.Fatalf("4th call: %d %s, want 429 rate_limited", r.Status, r.Body)
	}
	if r.Header.Get("Retry-After") == "" || !strings.Contains(r.Header.Get("RateLimit-Policy"), `"search-minute";q=3;w=60`) ||
		!strings.Contains(r.Header.Get("RateLimit"), `"search-minute";r=0;t=`) {
		t.Errorf("429 headers: %v", r.Header)
	}
	// The request log counts its own GET, as deny_test.go says.
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
		t.Errorf("the limited call reached Meilisearch (%d → %d requests)", before, after)
	}
	other := g.post("/agent/tools/search", bearer(agentToken(t, "docs-maintainer-agent")), body)
	if other.Status != 200 {
		t.Errorf("another agent's budget is its own: %d %s", other.Status, other.Body)
	}
}

// Anonymous readers behind a trusted proxy get a budget per address.
func TestRateLimitAnonymousPerAddress(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: limitedPolicy(t, 2),
		globalExtra: "servers {\n\t\ttrusted_proxies static 127.0.0.1/32\n\t}"})
	from := func(addr string) map[string]string { return map[string]string{"X-Forwarded-For": addr} }
	body := `{"question":"agent memory"}`
	for i := range 2 {
		if r := g.post("/answer/search", from("198.51.100.1"), body); r.Status != 200 {
			t.Fatalf("reader 1 call %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := g.post("/answer/search", from("198.51.100.1"), body); r.Status != 429 {
		t.Fatalf("reader 1 third call: %d %s, want 429", r.Status, r.Body)
	}
	if r := g.post("/answer/search", from("198.51.100.2"), body); r.Status != 200 {
		t.Fatalf("reader 2 has its own budget: %d %s", r.Status, r.Body)
	}
}
