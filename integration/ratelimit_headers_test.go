package integration

import (
	"context"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// Every 429 the gate sends carries Retry-After, RateLimit and
// RateLimit-Policy (the IETF draft), naming the budget that was spent
// (docs/operators.md "Rate limits"). The policy's own limits are checked in
// TestRateLimitPerCaller; these are the gate's other limits.

// assertLimited checks r is the 429 of the named budget: the protocol's
// envelope, a Retry-After of retry seconds (or any positive one when retry
// is 0), the policy item exactly, and RateLimit naming the same budget,
// spent.
func assertLimited(t *testing.T, what string, r response, policy string, retry int) {
	t.Helper()
	if r.Status != 429 || r.errorCode(t) != "rate_limited" {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 1 || (retry > 0 && ra != retry) {
		t.Errorf("%s: Retry-After %q, want %d", what, r.Header.Get("Retry-After"), retry)
	}
	if got := r.Header.Get("RateLimit-Policy"); got != policy {
		t.Errorf("%s: RateLimit-Policy %q, want %q", what, got, policy)
	}
	name := policy[:strings.Index(policy, ";")]
	if got := r.Header.Get("RateLimit"); !strings.HasPrefix(got, name+";r=0;t=") {
		t.Errorf("%s: RateLimit %q, want %s;r=0;t=…", what, got, name)
	}
}

// The anonymous session budget (sessions { anonymous_sessions 2 }): the
// third live anonymous session is refused naming the budget of places.
func TestAnonymousSessionBudgetHeaders(t *testing.T) {
	g, _ := startTappedGate(t, "anonymous_sessions 2")
	for i := range 2 {
		if r := g.post("/answer/sessions", nil, `{}`); r.Status != 200 {
			t.Fatalf("anonymous session %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := g.post("/answer/sessions", nil, `{}`)
	assertLimited(t, "a third anonymous session", r, `"anonymous-sessions";q=2;qu="concurrent-requests"`, 60)
}

// People's feedback (feedback { people_limit 2 1h }): two reports, the
// whole budget earned back in two hours; the third is refused with about
// an hour to wait and about two until the budget is whole.
func TestPeopleFeedbackLimitHeaders(t *testing.T) {
	g := peopleFeedbackBudgetSpent(t)
	r := g.post("/answer/feedback", nil, `{"eventType":"qa_no_answer","question":"a third gap"}`)
	assertLimited(t, "a third report", r, `"people-feedback";q=2;w=7200`, 0)
	reset, err := strconv.Atoi(strings.TrimPrefix(r.Header.Get("RateLimit"), `"people-feedback";r=0;t=`))
	if err != nil || reset < 6600 || reset > 7200 {
		t.Errorf("RateLimit %q: the budget is whole again in about two hours", r.Header.Get("RateLimit"))
	}
}

// Open answer streams (streaming { max_per_caller 1, max_open 2 }): a
// caller's second stream is refused naming the per-caller budget; with two
// callers streaming, a third caller is refused naming the gate's.
func TestStreamLimitHeaders(t *testing.T) {
	cancelled := make(chan struct{}, 8)
	g := startGate(t, gateOptions{ragflowURL: slowRAGFlow(t, cancelled), ragflowExtra: "idle_timeout 10s",
		extraOptions: "streaming {\n max_per_caller 1\n max_open 2\n retry_after 3s\n}"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	open := func(who map[string]string) {
		resp := g.streamAsk(ctx, "/agent/tools/ask", who, `{"question":"agent memory"}`)
		t.Cleanup(func() { resp.Body.Close() })
		readEvents(t, resp.Body, func(ev gateEvent) bool { return ev.name != "delta" }) // open and streaming
	}
	refused := func(path string, who map[string]string) response {
		resp := g.streamAsk(t.Context(), path, who, `{"question":"agent memory"}`)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	}
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	open(coding)
	assertLimited(t, "a caller's second stream", refused("/agent/tools/ask", coding), `"streams-per-caller";q=1;qu="concurrent-requests"`, 3)
	open(bearer(agentToken(t, "docs-maintainer-agent")))
	assertLimited(t, "a third caller on a full gate", refused("/answer/ask", bearer(humanToken(t, "bob"))), `"streams-per-gate";q=2;qu="concurrent-requests"`, 3)
}

// MCP sessions (mcp { max_sessions_per_caller 1 }): an agent's second
// initialize while its only session is serving a call (an ask held in
// RAGFlow) is refused naming the cap, with Retry-After 1: a place frees
// when the call ends. Once it has, the same initialize is admitted (the
// idle session is closed to make room).
func TestMCPSessionCapHeaders(t *testing.T) {
	tap, tapURL := newRAGFlowTap(t)
	g := startGate(t, gateOptions{ragflowURL: tapURL, ragflowExtra: "timeout 60s",
		extraOptions: "mcp {\n\t\t\tallowed_origins http://localhost:* http://127.0.0.1:*\n\t\t\tmax_sessions_per_caller 1\n\t\t}"})
	u, _ := url.Parse(g.ragURL)
	tap.upstream.Store(u)
	auth := map[string]string{"Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}
	busy := mcpInit(t, g, auth)
	second := func() response {
		return g.mcpPost(auth, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"second","version":"1"}}}`)
	}
	var during response
	hold := func() { during = second() }
	tap.during.Store(&hold)
	call := g.mcpPost(mcpOn(auth, busy), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"question":"agent memory"}}}`)
	if call.Status != 200 {
		t.Fatalf("the ask on the busy session: %d %s", call.Status, call.Body)
	}
	if during.Status != 429 || !strings.Contains(string(during.Body), `"rate_limited"`) {
		t.Fatalf("a second session while the first serves a call: %d %s", during.Status, during.Body)
	}
	if during.Header.Get("Retry-After") != "1" || during.Header.Get("RateLimit-Policy") != `"mcp-sessions-per-caller";q=1;qu="concurrent-requests"` ||
		during.Header.Get("RateLimit") != `"mcp-sessions-per-caller";r=0;t=1` {
		t.Fatalf("the 429's rate-limit fields: %v", during.Header)
	}
	if r := second(); r.Status != 200 {
		t.Errorf("a second session once the call ended: %d %s", r.Status, r.Body)
	}
}
