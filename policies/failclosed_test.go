package policies_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// allowBody is a well-formed allow; cases below break one part of it.
const allowBody = `{
	"allow": true,
	"scope": {"projects": ["p"], "paths": ["publish/p"], "version": "main", "includeWorkingDocs": false},
	"project_paths": {"p": ["publish/p/guides"]},
	"datasets": [{"id": "ds1", "project": "p", "version": "main", "status": "approved"}],
	"index": "wiki_pages",
	"write": false,
	"write_tools": [],
}`

func TestDecideFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		policy  string // body of package wikigate
		query   string
		wantErr string
		// evaluator pins the case to one evaluator; "" runs it on the
		// suite's (see TestMain).
		evaluator string
	}{
		{name: "undefined decision", policy: `decision := ` + allowBody + ` if input.tool == "never"`, wantErr: "undefined"},
		{name: "decision not an object", policy: `decision := true`, wantErr: "want an object"},
		{name: "allow not a bool", policy: `decision := {"allow": "yes"}`, wantErr: "malformed"},
		{name: "allow missing", policy: `decision := {"code": "forbidden_tool"}`, wantErr: "allow is missing"},
		{name: "deny with unknown code", policy: `decision := {"allow": false, "code": "nope"}`, wantErr: "unknown code"},
		{name: "deny without code", policy: `decision := {"allow": false, "reason": "no"}`, wantErr: "unknown code"},
		{name: "allow without datasets", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/datasets", "value": []}])`, wantErr: "without datasets"},
		{name: "allow with empty paths", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/scope/paths", "value": []}])`, wantErr: "empty scope paths"},
		{name: "allow without scope", policy: `decision := json.remove(` + allowBody + `, ["scope"])`, wantErr: "without a scope"},
		{name: "allow with dataset outside scope", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/datasets/0/project", "value": "q"}])`, wantErr: "outside the decided scope"},
		{name: "allow with unrequested working dataset", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/datasets/0/status", "value": "working"}])`, wantErr: "status"},
		{name: "write not a bool", policy: `decision := object.union(` + allowBody + `, {"write": "yes"})`, wantErr: "malformed"},
		{name: "scope not an object", policy: `decision := object.union(` + allowBody + `, {"scope": "everything"})`, wantErr: "malformed"},
		{name: "scope paths not strings", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/scope/paths", "value": [1]}])`, wantErr: "malformed"},
		{name: "dataset not an object", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/datasets/0", "value": "ds1"}])`, wantErr: "malformed"},
		{name: "dataset id not a string", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/datasets/0/id", "value": 1}])`, wantErr: "malformed"},
		{name: "allow without project paths", policy: `decision := json.remove(` + allowBody + `, ["project_paths"])`, wantErr: "without project_paths"},
		{name: "project without a path", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/project_paths/p", "value": []}])`, wantErr: `project "p" no path`},
		{name: "project missing from project paths", policy: `decision := json.remove(` + allowBody + `, ["project_paths/p"])`, wantErr: `project "p" no path`},
		{name: "project paths name another project", policy: `decision := json.patch(` + allowBody + `, [{"op": "add", "path": "/project_paths/q", "value": ["publish/p"]}])`, wantErr: `project "q" outside the scope`},
		{name: "project path outside the scope", policy: `decision := json.patch(` + allowBody + `, [{"op": "add", "path": "/project_paths/p/-", "value": "publish/px"}])`, wantErr: `path "publish/px" outside the scope`},
		{name: "project path wider than the scope", policy: `decision := json.patch(` + allowBody + `, [{"op": "replace", "path": "/project_paths/p", "value": ["publish"]}])`, wantErr: "outside the scope"},
		{name: "project paths not an object", policy: `decision := object.union(` + allowBody + `, {"project_paths": ["publish/p"]})`, wantErr: "malformed"},
		{name: "project paths key not a string", policy: `decision := object.union(` + allowBody + `, {"project_paths": {1: ["publish/p"]}})`, wantErr: "malformed"},
		{name: "project paths not strings", policy: `decision := object.union(` + allowBody + `, {"project_paths": {"p": [1]}})`, wantErr: "malformed"},
		{name: "page outside project paths", policy: `decision := object.union(` + allowBody + `, {"pages": ["publish/p/index.md"]})`, wantErr: `pages holds "publish/p/index.md" outside project_paths`},
		{name: "page on a sibling prefix", policy: `decision := object.union(` + allowBody + `, {"pages": ["publish/p/guides-x/a.md"]})`, wantErr: "outside project_paths"},
		{name: "pages not strings", policy: `decision := object.union(` + allowBody + `, {"pages": [1]})`, wantErr: "malformed"},
		{name: "write tools not a list", policy: `decision := object.union(` + allowBody + `, {"write_tools": "create_feedback"})`, wantErr: "malformed"},
		{
			name:    "evaluation error",
			policy:  "decision := {\"allow\": false, \"code\": \"unauthorized\"} if input.tool\ndecision := {\"allow\": false, \"code\": \"forbidden_tool\"} if input.action",
			wantErr: "conflict",
		},
		{
			name:    "more than one result",
			policy:  "decisions contains " + allowBody + "\ndecisions contains {\"allow\": false, \"code\": \"forbidden_tool\"}",
			query:   "data.wikigate.decisions[_]",
			wantErr: "2 results",
			// Only topdown evaluates a query that is not a rule; the Wasm
			// evaluator refuses it at load (TestWasmRefusesWhatItCannotServe).
			evaluator: policies.EvaluatorTopdown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "policy.rego", "package wikigate\n\n"+tc.policy+"\n")
			engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Query: tc.query, Evaluator: tc.evaluator})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			d, err := engine.Decide(t.Context(), agentCall("a", "search", nil))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Decide error = %v, want one containing %q", err, tc.wantErr)
			}
			if d.Allow || len(d.Datasets) != 0 {
				t.Errorf("failed decision allows: %+v", d)
			}
			if d.Revision != engine.Revision() {
				t.Errorf("failed decision revision %q, want %q for the audit record", d.Revision, engine.Revision())
			}
		})
	}
}

func TestDecideWellFormedMinimalPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", "package wikigate\n\ndecision := "+allowBody+"\n")
	engine := newEngine(t, dir)
	d, err := engine.Decide(t.Context(), agentCall("a", "search", nil))
	if err != nil || !d.Allow || d.Datasets[0].ID != "ds1" || d.Scope.Paths[0] != "publish/p" {
		t.Fatalf("Decide = %+v, %v; want the policy's allow", d, err)
	}
	if !reflect.DeepEqual(d.Scope.ProjectPaths, map[string][]string{"p": {"publish/p/guides"}}) || !slices.Equal(d.Scope.Datasets, []string{"ds1"}) {
		t.Errorf("Scope.ProjectPaths = %v, Scope.Datasets = %v; want the policy's project_paths and dataset ids", d.Scope.ProjectPaths, d.Scope.Datasets)
	}
}

func TestDecideHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	engine := newEngine(t, defaultPolicyDir)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	d, err := engine.Decide(ctx, agentCall("kunora-coding-agent", "search", nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Decide error = %v, want context.Canceled", err)
	}
	if d.Allow {
		t.Error("cancelled decision allows")
	}
}

// TestDecideReadsSetsAsLists: a policy may build lists as sets (their JSON
// form is a list), and a null field is a missing one.
func TestDecideReadsSetsAsLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", "package wikigate\n\ndecision := object.union("+allowBody+
		`, {"write_tools": {"create_feedback"}, "datasets": {{"id": "ds1", "project": "p", "version": "main", "status": "approved"}}, "reason": null})`+"\n")
	engine := newEngine(t, dir)
	d, err := engine.Decide(t.Context(), agentCall("a", "search", nil))
	if err != nil || !d.Allow || len(d.WriteTools) != 1 || d.WriteTools[0] != "create_feedback" || d.Datasets[0].ID != "ds1" {
		t.Fatalf("Decide = %+v, %v; want the allow with its set fields as lists", d, err)
	}
}
