package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limitedPolicy is the team's policy with every agent's search limited to
// n a minute and anonymous readers' search to n a minute per address.
func limitedPolicy(t *testing.T, n string) string {
	t.Helper()
	dir := copyDir(t, "../rego")
	path := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(raw), `"agents": {"search": 1200`, `"agents": {"search": `+n, 1)
	s = strings.Replace(s, `"anonymous": {"search": 120`, `"anonymous": {"search": `+n, 1)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// unlimitedPolicy is the team's policy without its rate limits, for tests
// of other budgets (the anonymous session store) that need thousands of
// calls from one address within a minute.
func unlimitedPolicy(t *testing.T) string {
	t.Helper()
	dir := copyDir(t, "../rego")
	path := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	delete(data, "limits")
	out, _ := json.Marshal(data)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The N+1th call within the minute is 429 with Retry-After and the
// RateLimit headers, and reaches no backend.
func TestRateLimitPerCaller(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: limitedPolicy(t, "3")})
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
	g := startGate(t, gateOptions{policyDir: limitedPolicy(t, "2"),
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
