package policies

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/profiler"
	"os"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/wikigate/wikigate/protocol"
)

func scratchPrep(b *testing.B, dir string, astStore bool) (rego.PreparedEvalQuery, *ast.Compiler, storage.Store) {
	s, err := readSnapshot(dir)
	if err != nil { b.Fatal(err) }
	result, err := loader.NewFileLoader().WithFS(fstest.MapFS(s)).WithRegoVersion(ast.RegoV1).Filtered([]string{"."}, excludeTests)
	if err != nil { b.Fatal(err) }
	compiler, err := result.Compiler()
	if err != nil { b.Fatal(err) }
	store, _ := result.StoreWithOpts(inmem.OptReturnASTValuesOnRead(astStore))
	pq, err := rego.New(rego.Query("data.wikigate.decision"), rego.Compiler(compiler), rego.Store(store)).PrepareForEval(context.Background())
	if err != nil { b.Fatal(err) }
	return pq, compiler, store
}

func scratchInput() Input {
	return Input{Endpoint: "/agent/tools/ask", Tool: "ask", Action: "read", SiteMode: "public-read",
		Caller: Caller{Type: "agent", ID: "docs-maintainer-agent", Credential: "jwt"},
		Scope: &protocol.Scope{Paths: []string{"publish/system/components/kunora-kgent/guides"}}}
}

func BenchmarkScratch(b *testing.B) {
	ctx := context.Background()
	for _, astStore := range []bool{false, true} {
		pq, compiler, store := scratchPrep(b, "../rego", astStore)
		v, _ := scratchInput().toValue()
		av, _ := ast.InterfaceToValue(v)
		b.Run("rego-parsed-rawresult/ast="+map[bool]string{true:"1",false:"0"}[astStore], func(b *testing.B) {
			for b.Loop() {
				rs, err := pq.Eval(ctx, rego.EvalParsedInput(av), rego.EvalGenerateJSON(func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }))
				if err != nil || len(rs) != 1 { b.Fatal(err) }
			}
		})
		b.Run("topdown/ast="+map[bool]string{true:"1",false:"0"}[astStore], func(b *testing.B) {
			q := ast.MustParseBody("data.wikigate.decision = x")
			for b.Loop() {
				txn, _ := store.NewTransaction(ctx)
				qq := topdown.NewQuery(q).WithCompiler(compiler).WithStore(store).WithTransaction(txn).WithInput(ast.NewTerm(av))
				rs, err := qq.Run(ctx)
				store.Abort(ctx, txn)
				if err != nil || len(rs) != 1 { b.Fatal(err) }
			}
		})
	}
	pq, _, _ := scratchPrep(b, "/tmp/scratch/trivial", true)
	b.Run("trivial", func(b *testing.B) {
		v, _ := scratchInput().toValue()
		av, _ := ast.InterfaceToValue(v)
		for b.Loop() {
			rs, err := pq.Eval(ctx, rego.EvalParsedInput(av), rego.EvalGenerateJSON(func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }))
			if err != nil || len(rs) != 1 { b.Fatal(err) }
		}
	})
}

func BenchmarkScratchTrivialTopdown(b *testing.B) {
	ctx := context.Background()
	_, compiler, store := scratchPrep(b, "/tmp/scratch/trivial", true)
	v, _ := scratchInput().toValue()
	av, _ := ast.InterfaceToValue(v)
	q := ast.MustParseBody("data.wikigate.decision = x")
	in := ast.NewTerm(av)
	for b.Loop() {
		txn, _ := store.NewTransaction(ctx)
		qq := topdown.NewQuery(q).WithCompiler(compiler).WithStore(store).WithTransaction(txn).WithInput(in)
		rs, err := qq.Run(ctx)
		store.Abort(ctx, txn)
		if err != nil || len(rs) != 1 { b.Fatal(err) }
	}
}

func TestScratchProfile(t *testing.T) {
	ctx := context.Background()
	dir := os.Getenv("SCRATCH_DIR")
	if dir == "" { t.Skip() }
	s, _ := readSnapshot(dir)
	result, _ := loader.NewFileLoader().WithFS(fstest.MapFS(s)).WithRegoVersion(ast.RegoV1).Filtered([]string{"."}, excludeTests)
	compiler, err := result.Compiler()
	if err != nil { t.Fatal(err) }
	store, _ := result.StoreWithOpts(inmem.OptReturnASTValuesOnRead(true))
	p := profiler.New()
	pq, err := rego.New(rego.Query("data.wikigate.decision"), rego.Compiler(compiler), rego.Store(store)).PrepareForEval(ctx)
	if err != nil { t.Fatal(err) }
	v, _ := scratchInput().toValue()
	for range 200 {
		if _, err := pq.Eval(ctx, rego.EvalInput(v), rego.EvalQueryTracer(p)); err != nil { t.Fatal(err) }
	}
	rs, _ := pq.Eval(ctx, rego.EvalInput(v))
	t.Logf("%v", rs[0].Expressions[0].Value)
	stats := p.ReportTopNResults(40, []string{"total_time_ns"})
	for _, s := range stats {
		t.Logf("%8dns %5d evals %5d redo  %s", s.ExprTimeNs/200, s.NumEval/201, s.NumRedo/201, s.Location)
	}
}
