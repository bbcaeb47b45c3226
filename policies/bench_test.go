package policies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// agentCounts are the data sizes the decision cost must stay flat across:
// the shipped three agents cut to one, a team, and a large organisation.
var agentCounts = []int{1, 100, 10_000}

// BenchmarkDecide measures one decision of a granted call (docs-maintainer
// asking about a sub-path, the costliest allow of the shipped policy) with
// 1, 100 and 10,000 agents in the data, with the decision cache disabled
// (cold: the policy is evaluated every time) and enabled (cached: the same
// input decided again), on the default evaluator (auto: Wasm, as the
// shipped policy passes the load's cross-check; BenchmarkEvaluators has
// topdown beside it).
func BenchmarkDecide(b *testing.B) {
	in := agentCall("docs-maintainer-agent", "ask", scope(nil, []string{kgent + "/guides"}, ""))
	for _, agents := range agentCounts {
		dir := policyDirWithAgents(b, agents)
		for _, mode := range []struct {
			name      string
			cacheSize int
		}{{"cold", -1}, {"cached", 0}} {
			b.Run(fmt.Sprintf("agents=%d/%s", agents, mode.name), func(b *testing.B) {
				engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop(), CacheSize: mode.cacheSize})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					d, err := engine.Decide(b.Context(), in)
					if err != nil || !d.Allow {
						b.Fatalf("Decide = %+v, %v", d, err)
					}
				}
				if mode.cacheSize < 0 {
					reportEvaluated(b, dir, policies.DefaultQuery, in)
				}
			})
		}
	}
}

// BenchmarkDecideBeforeRewrite is BenchmarkDecide's cold case with 10,000
// agents on the policy as it was before the rewrite for speed (the frozen
// copy the differential test compares with), so one run shows what the
// rewrite bought on the same machine at the same moment.
func BenchmarkDecideBeforeRewrite(b *testing.B) {
	in := agentCall("docs-maintainer-agent", "ask", scope(nil, []string{kgent + "/guides"}, ""))
	dir := policyDirWithAgents(b, 10_000)
	modules, err := filepath.Glob(filepath.Join(dir, "*.rego"))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range modules {
		if err := os.Remove(m); err != nil {
			b.Fatal(err)
		}
	}
	frozen, err := filepath.Glob(filepath.Join(frozenPolicyDir, "*.rego"))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range frozen {
		raw, err := os.ReadFile(m)
		if err != nil {
			b.Fatal(err)
		}
		writeFile(b, dir, filepath.Base(m), string(raw))
	}
	engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop(), CacheSize: -1, SkipTests: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d, err := engine.Decide(b.Context(), in); err != nil || !d.Allow {
			b.Fatalf("Decide = %+v, %v", d, err)
		}
	}
	reportEvaluated(b, dir, policies.DefaultQuery, in)
}

// BenchmarkDecideTool measures the tool gate every call asks before its
// body is read (data.wikigate.tool_decision), cold, 10,000 agents: an
// uncached call pays it on top of Decide.
func BenchmarkDecideTool(b *testing.B) {
	dir := policyDirWithAgents(b, 10_000)
	engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop(), CacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	in := agentCall("docs-maintainer-agent", "ask", nil)
	b.ReportAllocs()
	for b.Loop() {
		if d, err := engine.DecideTool(b.Context(), in); err != nil || !d.Allow {
			b.Fatalf("DecideTool = %+v, %v", d, err)
		}
	}
	reportEvaluated(b, dir, policies.ToolQuery, in)
}

// BenchmarkDecideDeny measures a denial (unknown agent) cold, the path an
// attacker probing ids drives, so it must not cost more than an allow.
func BenchmarkDecideDeny(b *testing.B) {
	dir := policyDirWithAgents(b, 10_000)
	engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop(), CacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	in := agentCall("stranger", "search", nil)
	b.ReportAllocs()
	for b.Loop() {
		d, err := engine.Decide(b.Context(), in)
		if err != nil || d.Allow {
			b.Fatalf("Decide = %+v, %v", d, err)
		}
	}
	reportEvaluated(b, dir, policies.DefaultQuery, in)
}

// policyDirWithAgents copies the shipped policy and sizes data.agents to n:
// docs-maintainer-agent first (the benchmarked caller), then synthetic
// agents shaped like kunora-coding-agent.
func policyDirWithAgents(b *testing.B, n int) string {
	b.Helper()
	dir := copyPolicyDir(b)
	editData(b, dir, func(data map[string]any) {
		shipped := data["agents"].(map[string]any)
		agents := map[string]any{"docs-maintainer-agent": shipped["docs-maintainer-agent"]}
		for i := 1; len(agents) < n; i++ {
			agents[fmt.Sprintf("synthetic-agent-%05d", i)] = shipped["kunora-coding-agent"]
		}
		data["agents"] = agents
	})
	return dir
}

// reportEvaluated reports what OPA's tracer counts in one evaluation of
// query on in with the policy in dir: expressions evaluated (exprs/op) and
// rule, function and comprehension bodies entered (bodies/op). Unlike
// ns/op they do not depend on how busy the machine is, and each costs
// about the same, so they say whether a change to the policy made a
// decision cheaper.
func reportEvaluated(b *testing.B, dir, query string, in policies.Input) {
	b.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	var input any
	if err := json.Unmarshal(raw, &input); err != nil {
		b.Fatal(err)
	}
	tracer := topdown.NewBufferTracer()
	rs, err := rego.New(rego.Query(query), rego.Load([]string{dir}, nil), rego.Input(input),
		rego.QueryTracer(tracer)).Eval(b.Context())
	if err != nil || len(rs) != 1 {
		b.Fatalf("%s with a tracer: %v, %v", query, rs, err)
	}
	exprs, bodies := 0, 0
	for _, e := range *tracer {
		switch e.Op {
		case topdown.EvalOp:
			exprs++
		case topdown.EnterOp:
			bodies++
		}
	}
	b.ReportMetric(float64(exprs), "exprs/op")
	b.ReportMetric(float64(bodies), "bodies/op")
}

// BenchmarkEvaluators decides BenchmarkDecide's allow (cold, 10,000
// agents), BenchmarkDecideDeny's denial and BenchmarkDecideTool's gate with
// each evaluator in the same run, so that the figures compare on the same
// machine at the same moment.
func BenchmarkEvaluators(b *testing.B) {
	dir := policyDirWithAgents(b, 10_000)
	allow := agentCall("docs-maintainer-agent", "ask", scope(nil, []string{kgent + "/guides"}, ""))
	deny := agentCall("stranger", "search", nil)
	gate := agentCall("docs-maintainer-agent", "ask", nil)
	for _, evaluator := range []string{policies.EvaluatorTopdown, policies.EvaluatorWasm} {
		engine, err := policies.New(context.Background(), policies.Options{
			Dir: dir, Logger: zap.NewNop(), CacheSize: -1, Evaluator: evaluator,
		})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name   string
			decide func() (policies.Decision, error)
			allow  bool
		}{
			{"allow", func() (policies.Decision, error) { return engine.Decide(b.Context(), allow) }, true},
			{"deny", func() (policies.Decision, error) { return engine.Decide(b.Context(), deny) }, false},
			{"tool", func() (policies.Decision, error) { return engine.DecideTool(b.Context(), gate) }, true},
		} {
			b.Run(evaluator+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if d, err := c.decide(); err != nil || d.Allow != c.allow {
						b.Fatalf("decision = %+v, %v", d, err)
					}
				}
			})
		}
	}
}
