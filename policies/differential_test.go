package policies_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// frozenPolicyDir is the policy as it was before it was rewritten for speed
// (issue 13); its README says which commit.
const frozenPolicyDir = "testdata/policy-4cbb9f0"

// differentialCalls is how many generated calls each data variant decides
// with both policies; with -short a tenth.
const differentialCalls = 1500

// TestRewriteDecidesLikeTheFrozenPolicy decides thousands of calls generated
// from the shipped data (every agent and kind of person, every tool and
// action, random scopes of granted, ungranted and unknown projects, paths
// above, inside and beside the grants, versions, working docs, pages, page
// and session scopes) with the frozen policy and with rego/, on the shipped
// data and on edited copies of it, and requires the same decision and the
// same tool-gate decision for each: the rewrite may only change how fast a
// decision is made, never what it says.
func TestRewriteDecidesLikeTheFrozenPolicy(t *testing.T) {
	t.Parallel()
	calls := differentialCalls
	if testing.Short() {
		calls /= 10
	}
	outcomes := map[string]int{}
	for _, variant := range dataVariants() {
		t.Run(variant.name, func(t *testing.T) {
			frozen := differentialEngine(t, frozenPolicyDir, variant.edit)
			current := differentialEngine(t, defaultPolicyDir, variant.edit)
			gen := newCallGenerator(variant.name)
			for i := range calls {
				outcomes[compareDecisions(t, i, frozen, current, gen.call())]++
			}
		})
	}
	// The generator must reach every outcome, or the comparison proves
	// little.
	t.Logf("outcomes: %v", outcomes)
	for _, o := range []string{"allow", "unauthorized", "forbidden_tool", "forbidden_scope", "dataset_not_allowed"} {
		if outcomes[o] < calls/50 {
			t.Errorf("too few %s among the generated calls' outcomes %v", o, outcomes)
		}
	}
}

// compareDecisions decides in with both engines and reports any
// difference; it returns the outcome: allow or the deny code.
func compareDecisions(t *testing.T, i int, frozen, current *policies.Engine, in policies.Input) string {
	t.Helper()
	ctx := context.Background()
	for _, q := range []struct {
		name   string
		decide func(*policies.Engine) (policies.Decision, error)
	}{
		{"decision", func(e *policies.Engine) (policies.Decision, error) { return e.Decide(ctx, in) }},
		{"tool_decision", func(e *policies.Engine) (policies.Decision, error) { return e.DecideTool(ctx, in) }},
	} {
		want, wantErr := q.decide(frozen)
		got, gotErr := q.decide(current)
		// The revision, its digest and the rules that decided a denial
		// (file:line) name each policy's own files.
		want.Revision, got.Revision = "", ""
		want.Digest, got.Digest = "", ""
		want.Rules, got.Rules = nil, nil
		want.Reason = withoutSessionPaths(want.Reason, in)
		got.Limits = withoutTokenBudgets(got.Limits)
		if (wantErr != nil) != (gotErr != nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("call %d, %s: %s\nfrozen:  %+v (error %v)\ncurrent: %+v (error %v)",
				i, q.name, describeInput(in), want, wantErr, got, gotErr)
		}
	}
	d, _ := current.Decide(ctx, in)
	if d.Allow {
		return "allow"
	}
	return string(d.Code)
}

// withoutTokenBudgets drops the token budgets an allowed ask carries (a
// feature added after the freeze: docs/operators.md, Token accounting and budgets);
// the frozen policy has none, and every call limit must still agree.
func withoutTokenBudgets(limits []policies.Limit) []policies.Limit {
	var kept []policies.Limit
	for _, l := range limits {
		if l.Tokens == 0 {
			kept = append(kept, l)
		}
	}
	return kept
}

// withoutSessionPaths is the frozen policy's reason as the policy now
// words it (a deliberate change since the freeze): on a turn that leaves
// its session, a path the turn took from the session rather than asked
// for is no longer named as "not in your grant" (it need not fit the
// turn's projects; "outside the session's scope" says what is wrong).
func withoutSessionPaths(reason string, in policies.Input) string {
	if in.Session == nil || !strings.Contains(reason, "the requested scope is outside the session's scope") {
		return reason
	}
	var asked []string
	if in.Scope != nil {
		asked = in.Scope.Paths
	}
	var kept []string
	for _, part := range strings.Split(reason, "; ") {
		if quoted, ok := strings.CutSuffix(strings.TrimPrefix(part, "path "), " is not in your grant"); ok && strings.HasPrefix(part, "path ") {
			if path, err := strconv.Unquote(quoted); err == nil && !slices.Contains(asked, path) {
				continue
			}
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "; ")
}

func describeInput(in policies.Input) string {
	s := fmt.Sprintf("%+v", in)
	if in.Scope != nil {
		s += fmt.Sprintf(" scope=%+v", *in.Scope)
	}
	if in.Page != nil {
		s += fmt.Sprintf(" page=%+v", *in.Page)
	}
	if in.Session != nil {
		s += fmt.Sprintf(" session=%+v", in.Session.Scope)
	}
	return s
}

// differentialEngine serves the policy modules of dir on the shipped data
// edited by edit, without the decision cache (every call is evaluated) and
// without the team's tests (they assert the unedited data).
func differentialEngine(t *testing.T, dir string, edit func(map[string]any)) *policies.Engine {
	t.Helper()
	return differentialEngineWith(t, dir, edit, "")
}

// differentialEngineWith is differentialEngine deciding with evaluator
// ("": the suite's default, see TestMain).
func differentialEngineWith(t *testing.T, dir string, edit func(map[string]any), evaluator string) *policies.Engine {
	t.Helper()
	target := t.TempDir()
	modules, err := filepath.Glob(filepath.Join(dir, "*.rego"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modules {
		if strings.HasSuffix(m, "_test.rego") {
			continue
		}
		raw, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, target, filepath.Base(m), string(raw))
	}
	raw, err := os.ReadFile(filepath.Join(defaultPolicyDir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, target, "data.json", string(raw))
	editData(t, target, edit)
	engine, err := policies.New(context.Background(), policies.Options{
		Dir: target, Logger: zap.NewNop(), CacheSize: -1, SkipTests: true, Evaluator: evaluator,
	})
	if err != nil {
		t.Fatalf("policy %s: %v", dir, err)
	}
	return engine
}

type dataVariant struct {
	name string
	edit func(map[string]any)
}

// dataVariants are the shipped data and copies edited the ways a security
// team edits grants: an agent switched off, a grant without main or
// without paths, a retired dataset, the people's defaults spelled out,
// anonymous feedback refused, a per-agent limit.
func dataVariants() []dataVariant {
	return []dataVariant{
		{"shipped", func(map[string]any) {}},
		{"edited", func(data map[string]any) {
			agents := data["agents"].(map[string]any)
			grants := func(id string) map[string]any {
				return agents[id].(map[string]any)["grants"].(map[string]any)
			}
			agents["ops-readonly-agent"].(map[string]any)["disabled"] = true
			grants("docs-maintainer-agent")["kunora-gateway"].(map[string]any)["versions"] = []any{"v1.0"}
			grants("kunora-coding-agent")["kunora-ops"] = map[string]any{
				"paths": []any{"publish/operations/runbooks"}, "versions": []any{"v1.0", "main"}, "working_docs": true,
			}
			agents["pathless-agent"] = map[string]any{
				"tools": []any{"search", "ask"}, "write_tools": []any{},
				"grants": map[string]any{"kunora-kgent": map[string]any{"paths": []any{}, "versions": []any{"main"}}},
			}
			agents["wide-agent"] = map[string]any{
				"tools": []any{"search", "get_page", "create_feedback"}, "write_tools": []any{"create_feedback"},
				"grants": map[string]any{
					"kunora-kgent":   map[string]any{"paths": []any{"publish/system/components/kunora-kgent/guides"}, "versions": []any{"main"}},
					"kunora-gateway": map[string]any{"paths": []any{"publish/system/components"}, "versions": []any{"main", "v1.0"}, "working_docs": true},
				},
			}
			catalog := data["catalog"].(map[string]any)["datasets"].(map[string]any)
			delete(catalog["kunora-gateway"].(map[string]any)["v1.0"].(map[string]any), "approved")
			humans := data["humans"].(map[string]any)
			humans["default_scope"].(map[string]any)["paths"] = []any{"publish/system"}
			humans["feedback"] = map[string]any{"anonymous": false}
			limits := data["limits"].(map[string]any)["per_minute"].(map[string]any)
			limits["agent_overrides"] = map[string]any{"wide-agent": map[string]any{"get_page": 5}}
		}},
	}
}

// callGenerator makes random calls out of the names in one engine's data.
type callGenerator struct {
	rng      *rand.Rand
	agents   []string
	projects []string
	paths    []string
}

var (
	generatedTools   = []string{"search", "search", "ask", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task", "", "nope"}
	generatedVersion = []string{"", "", "main", "v1.0", "v2.0"}
)

func newCallGenerator(variant string) *callGenerator {
	seed := uint64(len(variant)) * 7919
	g := &callGenerator{rng: rand.New(rand.NewPCG(seed, 13))}
	g.agents = []string{"kunora-coding-agent", "docs-maintainer-agent", "docs-maintainer-agent", "ops-readonly-agent", "pathless-agent", "wide-agent", "nobody"}
	g.projects = []string{"kunora-kgent", "kunora-gateway", "kunora-ops", "unknown-project"}
	for _, base := range []string{kgent, kgentExtras, gateway, "publish/operations", "publish/operations/runbooks"} {
		g.paths = append(g.paths, base, base+"/guides", base+"-x")
	}
	g.paths = append(g.paths, "publish", "publish/system", "publish/system/components", "other/place")
	return g
}

func (g *callGenerator) pick(from []string) string { return from[g.rng.IntN(len(from))] }

func (g *callGenerator) chance(percent int) bool { return g.rng.IntN(100) < percent }

// subset is up to max random members of from, in random order, possibly
// repeated.
func (g *callGenerator) subset(from []string, max int) []string {
	n := g.rng.IntN(max + 1)
	out := make([]string, 0, n)
	for range n {
		out = append(out, g.pick(from))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (g *callGenerator) call() policies.Input {
	tool := g.pick(generatedTools)
	in := policies.Input{Tool: tool, Action: "read", SiteMode: "public-read", Caller: g.caller()}
	if strings.HasPrefix(tool, "create_") || g.chance(5) {
		in.Action = "write"
	}
	if g.chance(3) {
		in.Action = "delete"
	}
	if g.chance(8) {
		in.SiteMode = g.pick([]string{"authenticated-read", "authenticated-read", "private"})
	}
	in.Endpoint = g.endpoint(in.Caller, tool)
	if !g.chance(30) {
		in.Scope = g.scope()
	}
	if tool == "get_page" || g.chance(5) {
		for _, p := range g.subset(g.paths, 3) {
			in.Pages = append(in.Pages, p+"/index.md")
		}
	}
	if in.Caller.Type == "human" && g.chance(50) {
		in.Page = &policies.Page{Path: g.pick(g.paths) + "/page.md", Version: g.pick(generatedVersion)}
		if g.chance(20) {
			in.Page.Path = ""
		}
	}
	if g.chance(20) {
		in.Session = &policies.SessionInput{Scope: *g.scope()}
	}
	return in
}

func (g *callGenerator) caller() policies.Caller {
	switch n := g.rng.IntN(20); {
	case n < 11:
		return policies.Caller{Type: "agent", ID: g.pick(g.agents), Credential: "jwt"}
	case n < 14:
		return policies.Caller{Type: "human", Anonymous: true, Credential: "anonymous"}
	case n < 16:
		return policies.Caller{Type: "human", ID: "bob", Roles: []string{"reader"}, Credential: "sso"}
	case n < 19:
		return policies.Caller{Type: "human", ID: "alice", Roles: []string{"reader", "wiki-maintainer"}, Credential: "sso"}
	}
	return policies.Caller{Type: g.pick([]string{"human", "robot", ""}), ID: g.pick([]string{"", "carol"}), Credential: g.pick([]string{"sso", "anonymous"})}
}

func (g *callGenerator) endpoint(c policies.Caller, tool string) string {
	if c.Type == "agent" && !g.chance(10) {
		return "/agent/tools/" + tool
	}
	return g.pick([]string{"/answer/ask", "/answer/search", "/answer/feedback", "/answer/sessions", "/mcp"})
}

func (g *callGenerator) scope() *protocol.Scope {
	s := &protocol.Scope{
		Projects:           g.subset(g.projects, 2),
		Paths:              g.subset(g.paths, 2),
		Version:            g.pick(generatedVersion),
		IncludeWorkingDocs: g.chance(25),
	}
	if g.chance(40) {
		s.Paths = nil
	}
	if g.chance(40) {
		s.Projects = nil
	}
	return s
}
