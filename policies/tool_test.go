package policies_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

func TestDecideToolWithTheShippedPolicy(t *testing.T) {
	t.Parallel()
	engine := newEngine(t, defaultPolicyDir)
	outside := scope([]string{"kunora-gateway"}, nil, "")
	cases := []struct {
		name     string
		in       policies.Input
		wantCode protocol.Code // "" means allow
	}{
		{"granted tool", agentCall("kunora-coding-agent", "search", nil), ""},
		{"granted tool, scope not read", agentCall("kunora-coding-agent", "search", outside), ""},
		{"ungranted tool", agentCall("ops-readonly-agent", "ask", nil), protocol.CodeForbiddenTool},
		{"unknown agent", agentCall("nobody", "search", nil), protocol.CodeUnauthorized},
		{"anonymous ask in public-read", humanAsk("public-read", anonymousHuman, nil), ""},
		{"anonymous ask in authenticated-read", humanAsk("authenticated-read", anonymousHuman, nil), protocol.CodeUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := engine.DecideTool(t.Context(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allow != (tc.wantCode == "") || d.Code != tc.wantCode || d.Revision != engine.Revision() {
				t.Fatalf("got %+v, want code %q", d, tc.wantCode)
			}
			if d.Allow && (len(d.Datasets) > 0 || len(d.Scope.Paths) > 0) {
				t.Fatalf("a tool allow carries a scope or datasets: %+v", d)
			}
		})
	}
}

// TestDecideToolIsCachedApartFromDecide: a call without scope or page is
// the same Input for both queries; neither may answer from the other's
// cache entry.
func TestDecideToolIsCachedApartFromDecide(t *testing.T) {
	t.Parallel()
	engine := newEngine(t, defaultPolicyDir)
	in := agentCall("kunora-coding-agent", "search", nil)
	for range 2 {
		if d, err := engine.DecideTool(t.Context(), in); err != nil || !d.Allow || len(d.Datasets) != 0 {
			t.Fatalf("tool gate: %+v %v", d, err)
		}
		if d, err := engine.Decide(t.Context(), in); err != nil || !d.Allow || len(d.Datasets) == 0 {
			t.Fatalf("decision: %+v %v", d, err)
		}
	}
}

func TestDecideToolFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, policy, wantErr string }{
		{"no tool gate", "", "undefined"},
		{"allow not a bool", `tool_decision := {"allow": "yes"}`, "malformed"},
		{"allow missing", `tool_decision := {"code": "forbidden_tool"}`, "allow is missing"},
		{"deny with unknown code", `tool_decision := {"allow": false, "code": "nope"}`, "unknown code"},
		{"not an object", `tool_decision := true`, "want an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "policy.rego", "package wikigate\n\ndecision := "+allowBody+"\n"+tc.policy+"\n")
			engine := newEngine(t, dir)
			d, err := engine.DecideTool(t.Context(), agentCall("a", "search", nil))
			if err == nil || d.Allow || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %+v, %v; want a deny with %q", d, err, tc.wantErr)
			}
			if tc.policy == "" && !errors.Is(err, policies.ErrUndefinedDecision) {
				t.Fatalf("a policy without the gate: %v, want ErrUndefinedDecision", err)
			}
		})
	}
}
