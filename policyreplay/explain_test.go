package policyreplay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const opsGetContext = `{"endpoint":"/agent/tools/get_context","tool":"get_context","action":"read","site_mode":"public-read",` +
	`"caller":{"type":"agent","id":"ops-readonly-agent","anonymous":false,"roles":null,"credential":"jwt"},"scope":null}`

func explain(t *testing.T, o ExplainOptions) string {
	t.Helper()
	o.Policy = "../rego"
	var out bytes.Buffer
	if err := Explain(context.Background(), &out, o); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestExplainInput: a denied input is explained with its code, reason and
// the rules that named them, as file:line and the rule's head.
func TestExplainInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "call.json")
	if err := os.WriteFile(file, []byte(opsGetContext), 0o600); err != nil {
		t.Fatal(err)
	}
	out := explain(t, ExplainOptions{InputFile: file})
	for _, want := range []string{
		"wikigate/decision (data.wikigate.decision) for agent:ops-readonly-agent /agent/tools/get_context",
		"  decision: deny\n  code: forbidden_tool\n  reason: tool \"get_context\" is not allowed\n",
		"identity.rego:", "tool_problems contains sprintf(\"tool %q is not allowed\"",
		"decision.rego:", "denial else := {\"code\": \"forbidden_tool\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
}

// TestExplainRequestID: --request-id finds the request's events in a
// decision log (tool gate and decision) and explains each; an unknown id
// is an error naming it.
func TestExplainRequestID(t *testing.T) {
	log := filepath.Join(t.TempDir(), "decisions.log")
	lines := `{"level":"info","msg":"wikigate call","request_id":"r1"}` + "\n" +
		`{"decision_id":"r1","path":"wikigate/tool_decision","input":` + opsGetContext + `}` + "\n" +
		`{"decision_id":"r2","path":"wikigate/tool_decision","input":` + strings.Replace(opsGetContext, "ops-readonly-agent", "kunora-coding-agent", 1) + `}` + "\n" +
		`{"decision_id":"r2","path":"wikigate/decision","input":` + strings.Replace(opsGetContext, "ops-readonly-agent", "kunora-coding-agent", 1) + `}` + "\n"
	if err := os.WriteFile(log, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	out := explain(t, ExplainOptions{RequestID: "r1", Log: log})
	if !strings.Contains(out, "wikigate/tool_decision (data.wikigate.tool_decision) for agent:ops-readonly-agent") ||
		!strings.Contains(out, "code: forbidden_tool") || strings.Contains(out, "kunora") {
		t.Errorf("explain r1:\n%s", out)
	}
	out = explain(t, ExplainOptions{RequestID: "r2", Log: log})
	if !strings.Contains(out, "decision: allow\n  scope: projects=[kunora-kgent]") || !strings.Contains(out, "decision.rego:") {
		t.Errorf("explain r2:\n%s", out)
	}
	// The allowed tool gate comes first and must not read as an empty grant.
	gate, _, _ := strings.Cut(out, "wikigate/decision (")
	if !strings.Contains(gate, "decision: allow (the tool only: the scope is the next decision's)") || strings.Contains(gate, "scope: projects=") {
		t.Errorf("explain r2's tool gate:\n%s", gate)
	}
	err := Explain(context.Background(), new(bytes.Buffer), ExplainOptions{Policy: "../rego", RequestID: "r9", Log: log})
	if err == nil || !strings.Contains(err.Error(), "no decision event for request r9") {
		t.Errorf("unknown request id: %v", err)
	}
}
