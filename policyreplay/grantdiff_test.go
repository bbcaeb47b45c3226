package policyreplay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// policyCopy copies the shipped policy (../rego, without its tests) to a
// temporary folder and applies edit to its data.json, as a security
// engineer edits a candidate.
func policyCopy(t *testing.T, edit func(data map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../rego")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), "_test.rego") || strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("../rego", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "data.json" && edit != nil {
			var data map[string]any
			if err := json.Unmarshal(raw, &data); err != nil {
				t.Fatal(err)
			}
			edit(data)
			if raw, err = json.MarshalIndent(data, "", "  "); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func agentOf(data map[string]any, id string) map[string]any {
	return data["agents"].(map[string]any)[id].(map[string]any)
}

// widenAsTheIssueDoes adds an agent with every tool, project, working docs
// and write, and widens the coding agent: the candidate that replayed as
// "no decision changes", exit 0.
func widenAsTheIssueDoes(data map[string]any) {
	all := []any{"search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task"}
	grant := func(path string) map[string]any {
		return map[string]any{"paths": []any{path}, "versions": []any{"main", "v1.0"}, "working_docs": true}
	}
	data["agents"].(map[string]any)["everything-agent"] = map[string]any{
		"tools": all, "write_tools": all,
		"grants": map[string]any{
			"kunora-kgent":   grant("publish"),
			"kunora-gateway": grant("publish"),
			"kunora-ops":     grant("publish"),
		},
	}
	coding := agentOf(data, "kunora-coding-agent")
	coding["tools"] = append(coding["tools"].([]any), "create_improvement_task")
	coding["write_tools"] = append(coding["write_tools"].([]any), "create_improvement_task")
	g := coding["grants"].(map[string]any)["kunora-kgent"].(map[string]any)
	g["working_docs"] = true
	g["paths"] = []any{"publish"}
	coding["grants"].(map[string]any)["kunora-ops"] = grant("publish/operations")
}

func runDiff(t *testing.T, old, cand string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := RunDiff(&out, DiffOptions{Old: old, Candidate: cand})
	return out.String(), err
}

func TestDiffFailsOnTheIssuesWideningAndNamesEachWidening(t *testing.T) {
	out, err := runDiff(t, "../rego", policyCopy(t, widenAsTheIssueDoes))
	if !errors.Is(err, ErrWidens) {
		t.Fatalf("diff of a widening candidate: %v, want ErrWidens\n%s", err, out)
	}
	for _, want := range []string{
		"WIDENS   agent everything-agent: new agent: tools search, ask, get_page, get_context, create_feedback, create_improvement_task, write tools search, ask, get_page, get_context, create_feedback, create_improvement_task, project kunora-gateway (paths publish; versions main, v1.0; working docs)",
		"WIDENS   agent kunora-coding-agent: gains tool create_improvement_task",
		"WIDENS   agent kunora-coding-agent: gains write tool create_improvement_task",
		"WIDENS   agent kunora-coding-agent: gains project kunora-kgent path publish",
		"WIDENS   agent kunora-coding-agent: gains project kunora-kgent working docs",
		"WIDENS   agent kunora-coding-agent: gains project kunora-ops: paths publish/operations; versions main, v1.0; working docs",
		"the candidate widens access",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDiffPassesANarrowing(t *testing.T) {
	out, err := runDiff(t, "../rego", policyCopy(t, func(data map[string]any) {
		agentOf(data, "ops-readonly-agent")["disabled"] = true
		coding := agentOf(data, "kunora-coding-agent")
		coding["tools"] = []any{"search"}
		coding["grants"].(map[string]any)["kunora-kgent"].(map[string]any)["paths"] = []any{"publish/system/components/kunora-kgent/api"}
		data["limits"].(map[string]any)["per_minute"].(map[string]any)["agents"].(map[string]any)["search"] = 10
	}))
	if err != nil {
		t.Fatalf("diff of a narrowing: %v\n%s", err, out)
	}
	for _, want := range []string{
		"NARROWS  agent ops-readonly-agent: switched off (disabled)",
		"NARROWS  agent kunora-coding-agent: loses tool ask",
		"NARROWS  agent kunora-coding-agent: loses project kunora-kgent path publish/system/components/kunora-kgent",
		"NARROWS  agent kunora-coding-agent: search calls a minute lowered from 1200 to 10",
		"nothing widens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WIDENS") {
		t.Errorf("a narrowing reported as widening:\n%s", out)
	}
}

func TestDiffPassesAnUnrelatedEdit(t *testing.T) {
	same, err := runDiff(t, "../rego", policyCopy(t, nil))
	if err != nil || !strings.Contains(same, "grants equal: nothing widens") {
		t.Errorf("diff of a copy: %v\n%s", err, same)
	}
	out, err := runDiff(t, "../rego", policyCopy(t, func(data map[string]any) {
		data["humans"].(map[string]any)["default_scope"].(map[string]any)["version"] = "v1.0"
	}))
	if err != nil || !strings.Contains(out, "nothing widens: 0 narrowing(s), 1 other change(s)") {
		t.Errorf("diff of an unrelated edit: %v\n%s", err, out)
	}
}

// Raising a limit, lifting one, re-enabling an agent, a new public path or
// maintainer role and anonymous feedback each widen.
func TestDiffCatchesEveryKindOfWidening(t *testing.T) {
	old := policyCopy(t, func(data map[string]any) {
		agentOf(data, "ops-readonly-agent")["disabled"] = true
		data["humans"].(map[string]any)["feedback"].(map[string]any)["anonymous"] = false
	})
	out, err := runDiff(t, old, policyCopy(t, func(data map[string]any) {
		pm := data["limits"].(map[string]any)["per_minute"].(map[string]any)
		pm["humans"].(map[string]any)["ask"] = 600
		delete(pm["anonymous_total"].(map[string]any), "search")
		humans := data["humans"].(map[string]any)
		humans["maintainer_roles"] = []any{"wiki-maintainer", "everyone"}
		humans["public"].(map[string]any)["paths"] = []any{"publish", "internal"}
	}))
	if !errors.Is(err, ErrWidens) {
		t.Fatalf("diff: %v, want ErrWidens\n%s", err, out)
	}
	for _, want := range []string{
		"WIDENS   agent ops-readonly-agent: switched on (was disabled): tools search, get_page",
		"WIDENS   anonymous readers: gains feedback",
		"WIDENS   maintainers: gains SSO role granting working docs everyone",
		"WIDENS   people: gains public path internal",
		"WIDENS   limits.humans: ask calls a minute raised from 60 to 600",
		"WIDENS   limits.anonymous_total: search calls a minute: limit of 6000 removed (unlimited)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Replay with a baseline fails on a widening no recorded call shows: the
// log holds only a maintainer's search, which the candidate decides alike.
func TestReplayWithBaselineFailsOnAWideningGrant(t *testing.T) {
	log := filepath.Join(t.TempDir(), "decisions.log")
	if err := os.WriteFile(log, []byte(eventLine(t, "r1", maintainerWorkingDocs, false)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Run(context.Background(), &out, Options{Log: log, Candidate: policyCopy(t, widenAsTheIssueDoes), Baseline: "../rego"})
	if !errors.Is(err, ErrWidens) {
		t.Fatalf("replay: %v, want ErrWidens\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "no decision changes") || !strings.Contains(out.String(), "WIDENS   agent everything-agent: new agent") {
		t.Errorf("replay output:\n%s", out.String())
	}
	out.Reset()
	if err := Run(context.Background(), &out, Options{Log: log, Candidate: policyCopy(t, widenAsTheIssueDoes), Baseline: "../rego", AllowWidening: true}); err != nil {
		t.Errorf("replay --allow-widening: %v\n%s", err, out.String())
	}
}

// A candidate the gate would refuse (the disable typo) is not diffed.
func TestDiffRefusesDataTheGateWouldRefuse(t *testing.T) {
	_, err := runDiff(t, "../rego", policyCopy(t, func(data map[string]any) {
		a := agentOf(data, "kunora-coding-agent")
		delete(a, "disabled")
		a["disable"] = true
	}))
	if err == nil || !strings.Contains(err.Error(), `did you mean "disabled"?`) {
		t.Errorf("diff of the typo: %v", err)
	}
}

// The decision log keeps write_tools and replay compares them: a candidate
// that only adds a write tool flips the coding agent's recorded search to
// widened (the log dropped write_tools, so this replayed as no change).
func TestReplayComparesWriteTools(t *testing.T) {
	in := agentSearch("kunora-coding-agent")
	line := decisionLine(t, "w1", in)
	if !strings.Contains(line, `"write_tools":["create_feedback"]`) {
		t.Fatalf("the decision log line lacks write_tools: %s", line)
	}
	log := filepath.Join(t.TempDir(), "decisions.log")
	if err := os.WriteFile(log, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	cand := policyCopy(t, func(data map[string]any) {
		a := agentOf(data, "kunora-coding-agent")
		a["write_tools"] = append(a["write_tools"].([]any), "create_improvement_task")
	})
	var out bytes.Buffer
	err := Run(context.Background(), &out, Options{Log: log, Candidate: cand})
	if !errors.Is(err, ErrFlips) || !strings.Contains(out.String(), "added write_tool:create_improvement_task") {
		t.Errorf("replay: %v\n%s", err, out.String())
	}
}

func agentSearch(id string) policies.Input {
	return policies.Input{Endpoint: "/agent/tools/search", Tool: "search", Action: "read", SiteMode: "public-read",
		Caller: policies.Caller{Type: "agent", ID: id, Credential: "jwt"}}
}

// decisionLine is the decision-log event the gate writes for in (through
// policies.DecisionLog's encoding of WireOf).
func decisionLine(t *testing.T, id string, in policies.Input) string {
	t.Helper()
	e, err := policies.New(context.Background(), policies.Options{Dir: "../rego", SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(context.Background(), in)
	if err != nil || !d.Allow {
		t.Fatalf("shipped policy: %v %+v", err, d)
	}
	line, _ := json.Marshal(map[string]any{"decision_id": id, "path": policies.PathDecision, "input": in, "result": policies.WireOf(d)})
	return string(line) + "\n"
}
