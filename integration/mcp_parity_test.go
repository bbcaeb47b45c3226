package integration

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"
)

// shippedAgents reads the agents of the shipped policy data, so the parity
// test covers every agent the security team configures.
func shippedAgents(t *testing.T) map[string]struct {
	Grants map[string]struct {
		Paths []string `json:"paths"`
	} `json:"grants"`
} {
	t.Helper()
	raw, err := os.ReadFile("../rego/data.json")
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Agents map[string]struct {
			Grants map[string]struct {
				Paths []string `json:"paths"`
			} `json:"grants"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(raw, &data); err != nil || len(data.Agents) == 0 {
		t.Fatalf("rego/data.json: %v", err)
	}
	return data.Agents
}

// inGrantArgs is a call of tool that asks for nothing outside project's
// grant (root: a path of the grant; "" for the anonymous reader, whose
// scope is the public default).
func inGrantArgs(tool, project, root string) map[string]any {
	args := map[string]any{"question": "How do I configure agent memory?"}
	if project != "" {
		args["scope"] = map[string]any{"projects": []string{project}}
	}
	switch tool {
	case "get_page":
		path := "publish/system/components/kunora-kgent/index.md"
		if root != "" {
			path = root + "/index.md"
		}
		return map[string]any{"path": path}
	case "create_feedback":
		args["eventType"], args["comment"] = "qa_no_answer", "parity test"
	case "create_improvement_task":
		args["eventType"], args["title"] = "qa_no_answer", "Parity test task"
	}
	return args
}

// refusedCodes are the answers that mean "this caller may not call this".
var refusedCodes = []string{"forbidden_tool", "forbidden_scope", "dataset_not_allowed", "unauthorized", "policy_unavailable"}

// TestMCPListCallParity is the list/call parity property over every agent
// of the shipped policy data (and the anonymous public reader) and every
// tool: a tool is listed iff calling it with an in-grant scope is allowed,
// and a hidden tool called directly is refused with forbidden_tool.
func TestMCPListCallParity(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	agents := shippedAgents(t)
	callers := []string{""}
	for id := range agents {
		callers = append(callers, id)
	}
	sort.Strings(callers)
	tools := []string{"search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task"}
	mismatches, checked := 0, 0
	for _, id := range callers {
		token, project, root := "", "", ""
		if id != "" {
			token = agentToken(t, id)
			for p, grant := range agents[id].Grants {
				if project == "" || p < project {
					project, root = p, grant.Paths[0]
				}
			}
		}
		cs := mcpConnect(t, g, token, "", nil)
		listed := mcpToolNames(t, cs)
		for _, tool := range tools {
			res := mcpCall(t, cs, tool, inGrantArgs(tool, project, root))
			code := toolErrorCode(t, res)
			allowed := !slices.Contains(refusedCodes, code)
			checked++
			if allowed != slices.Contains(listed, tool) {
				mismatches++
				t.Errorf("caller %q tool %s: listed %v, call answered %q", id, tool, slices.Contains(listed, tool), code)
			}
			if !slices.Contains(listed, tool) && code != "forbidden_tool" {
				t.Errorf("caller %q: hidden tool %s called directly answered %q, want forbidden_tool", id, tool, code)
			}
		}
	}
	if checked != len(callers)*len(tools) || mismatches != 0 {
		t.Fatalf("%d mismatches in %d checks", mismatches, checked)
	}
	t.Logf("list/call parity: %d callers × %d tools, 0 mismatches", len(callers), len(tools))
}
