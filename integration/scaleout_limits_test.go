package integration

import (
	"strings"
	"testing"
)

// An agent's new sessions are budgeted per hour like people's: without
// it one agent could keep thousands of sessions live (its ask budget is
// the only other bound) and, on the memory store, push other signed-in
// callers' sessions out of max_memory. The shipped policy sets the budget;
// this test runs it at 2 an hour.
func TestAgentSessionsHaveAnHourlyBudget(t *testing.T) {
	dir := policyWithData(t, func(data map[string]any) {
		sessions := limitGroup(t, data, "per_hour", "sessions")
		if _, ok := sessions["agents"]; !ok {
			t.Fatalf("the shipped policy gives agents no sessions budget: %v", sessions)
		}
		sessions["agents"] = 2
	})

	g := startGate(t, gateOptions{policyDir: dir})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	createSession(t, g, coding)
	createSession(t, g, coding)
	r := g.post("/answer/sessions", coding, `{}`)
	if r.Status != 429 || r.errorCode(t) != "rate_limited" || !strings.Contains(r.Header.Get("RateLimit-Policy"), `"sessions-hour";q=2;w=3600`) {
		t.Fatalf("third session within the hour: %d %v %s", r.Status, r.Header, r.Body)
	}
	if other := g.post("/answer/sessions", bearer(agentToken(t, "docs-maintainer-agent")), `{}`); other.Status != 200 {
		t.Fatalf("another agent's budget is its own: %d %s", other.Status, other.Body)
	}
}
