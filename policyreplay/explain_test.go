package policyreplay

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
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

// TestExplainUsesTheRevisionThatDecided: a logged decision is explained
// with the kept sources of its revision, though the policy folder has
// moved on (the agent since disabled); with that revision not kept, explain
// says it cannot and whose decision it prints instead.
func TestExplainUsesTheRevisionThatDecided(t *testing.T) {
	rev, _, err := policies.FolderRevision("../rego")
	if err != nil {
		t.Fatal(err)
	}
	kept := t.TempDir()
	copyTree(t, "../rego", filepath.Join(kept, rev))
	moved := filepath.Join(t.TempDir(), "rego")
	copyTree(t, "../rego", moved)
	data := filepath.Join(moved, "data.json")
	raw, _ := os.ReadFile(data)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["agents"].(map[string]any)["kunora-coding-agent"].(map[string]any)["disabled"] = true
	edited, _ := json.Marshal(doc)
	os.WriteFile(data, edited, 0o600)

	log := filepath.Join(t.TempDir(), "decisions.log")
	call := strings.Replace(opsGetContext, "ops-readonly-agent", "kunora-coding-agent", 1)
	os.WriteFile(log, []byte(`{"decision_id":"r9","path":"wikigate/tool_decision","bundles":{"wikigate":{"revision":"`+rev+`"}},"input":`+call+`}`+"\n"), 0o600)

	var out bytes.Buffer
	if err := Explain(context.Background(), &out, ExplainOptions{RequestID: "r9", Log: log, Policy: moved, Revisions: kept}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "policy: revision "+rev+", as the gate served it") || !strings.Contains(out.String(), "decision: allow") {
		t.Errorf("with the revision kept:\n%s", out.String())
	}
	out.Reset()
	if err := Explain(context.Background(), &out, ExplainOptions{RequestID: "r9", Log: log, Policy: moved, Revisions: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "warning: cannot explain with revision "+rev) || !strings.Contains(out.String(), "decision: deny") {
		t.Errorf("with the revision not kept:\n%s", out.String())
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o750)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), raw, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
