package wasmeval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
)

// loadRego loads dir's modules (without *_test.rego) and data as the
// policies package does.
func loadRego(t testing.TB, dir string) (map[string]*ast.Module, []byte) {
	t.Helper()
	result, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).
		Filtered([]string{dir}, func(_ string, info fs.FileInfo, _ int) bool {
			return (info.IsDir() && info.Name() == "schema") || strings.HasSuffix(info.Name(), "_test.rego") || strings.HasSuffix(info.Name(), ".go")
		})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(result.Documents)
	if err != nil {
		t.Fatal(err)
	}
	return result.ParsedModules(), data
}

func newShipped(t testing.TB) *Policy {
	t.Helper()
	ctx := context.Background()
	modules, data := loadRego(t, "../../rego")
	wasm, err := Compile(ctx, modules, "data.wikigate.decision", "data.wikigate.tool_decision")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, wasm, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func TestEvalShipped(t *testing.T) {
	p := newShipped(t)
	if got := p.Builtins(); len(got) != 1 || got[0] != "sprintf" {
		t.Errorf("host built-ins %v, want [sprintf]", got)
	}
	id, ok := p.Entrypoint("data.wikigate.decision")
	if !ok {
		t.Fatal("no decision entrypoint")
	}
	for _, c := range []struct{ input, want string }{
		{allowInput, `"allow":true`},
		{`{"endpoint":"/agent/tools/search","tool":"search","action":"read","site_mode":"public-read","caller":{"type":"agent","id":"stranger","anonymous":false,"roles":null,"credential":"jwt"},"scope":null}`,
			`{"allow":false,"reason":"unknown agent","code":"unauthorized"}`},
		{`{"endpoint":"/agent/tools/nope","tool":"nope","action":"read","site_mode":"public-read","caller":{"type":"agent","id":"docs-maintainer-agent","anonymous":false,"roles":null,"credential":"jwt"},"scope":null}`,
			`"reason":"tool \"nope\" is not allowed"`},
	} {
		out, err := p.Eval(context.Background(), id, []byte(c.input), nil)
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("Eval(%s) = %s, %v; want it to contain %s", c.input, out, err, c.want)
		}
	}
}

// compileOne compiles module (a package t) with entrypoint data.t.x and
// no data.
func compileOne(t *testing.T, module string) (*Policy, int32) {
	t.Helper()
	m, err := ast.ParseModuleWithOpts("t.rego", "package t\n\n"+module, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := Compile(context.Background(), map[string]*ast.Module{"t.rego": m}, "data.t.x")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), wasm, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	id, ok := p.Entrypoint("t/x")
	if !ok {
		t.Fatal("no entrypoint t/x")
	}
	return p, id
}

// topdownJSON is data.t.x of module on input with OPA's topdown, as JSON.
func topdownJSON(t *testing.T, module, input string) string {
	t.Helper()
	var in any
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatal(err)
	}
	rs, err := rego.New(rego.Query("data.t.x"), rego.Module("t.rego", "package t\n\n"+module), rego.Input(in)).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("topdown: %v, %v", rs, err)
	}
	raw, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestEvalMatchesTopdown: concat over sets (whose iteration order differs
// in Wasm, see order.go) and over arrays, and sprintf, a built-in the host
// supplies, with strings that need escaping both ways.
func TestEvalMatchesTopdown(t *testing.T) {
	cases := []struct{ module, input string }{
		{`x := concat("; ", {s | some s in input.words})`, `{"words":["pear","apple","fig","apple","Zed","é"]}`},
		{`x := concat(",", input.words)`, `{"words":["pear","apple","fig"]}`},
		{`x := [concat("-", {"c", "a"}), concat("", [])]`, `{}`},
		{`x := concat("/", input.words) if { concat(",", {"b", "a"}, "a,b") }`, `{"words":["b","a"]}`},
		{`x := sprintf("%q and %v / %d", [input.s, input.o, input.n])`, `{"s":"quote \" tab \t nul \u0000 snow ☃ 😀","o":{"k":[1,"v"]},"n":12}`},
		{`x := {"reason": sprintf("tool %q is not allowed", [input.t])}`, `{"t":"\u001b[31m"}`},
	}
	for _, c := range cases {
		p, id := compileOne(t, c.module)
		out, err := p.Eval(context.Background(), id, []byte(c.input), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.module, err)
		}
		var got, want any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: result %s: %v", c.module, out, err)
		}
		if err := json.Unmarshal([]byte(topdownJSON(t, c.module, c.input)), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s on %s:\nwasm    %s\ntopdown %s", c.module, c.input, out, topdownJSON(t, c.module, c.input))
		}
	}
}

// TestEvalFailures: undefined is ErrUndefined; a conflict aborts the
// evaluation with OPA's message and the pool goes on serving; a cancelled
// context is refused before evaluating.
func TestEvalFailures(t *testing.T) {
	p, id := compileOne(t, "x := 1 if input.a == 1\nx := 2 if input.b == 1")
	ctx := context.Background()
	if _, err := p.Eval(ctx, id, []byte(`{"a":2}`), nil); !errors.Is(err, ErrUndefined) {
		t.Errorf("undefined: %v, want ErrUndefined", err)
	}
	if _, err := p.Eval(ctx, id, nil, nil); !errors.Is(err, ErrUndefined) {
		t.Errorf("no input: %v, want ErrUndefined", err)
	}
	if out, err := p.Eval(ctx, id, []byte(`{"a":1,"b":1}`), nil); err == nil || !strings.Contains(err.Error(), "conflict") {
		t.Errorf("conflict: %s, %v; want an error naming the conflict", out, err)
	}
	if out, err := p.Eval(ctx, id, []byte(`{"a":1}`), nil); err != nil || string(out) != "1" {
		t.Errorf("after an abort: %s, %v; want 1", out, err)
	}
	if _, err := p.Eval(ctx, id, []byte(`{"a":`), nil); err == nil {
		t.Error("malformed input evaluated")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Eval(cancelled, id, []byte(`{"a":1}`), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	p.Close()
	if out, err := p.Eval(ctx, id, []byte(`{"a":1}`), nil); err != nil || string(out) != "1" {
		t.Errorf("after Close: %s, %v; want 1 (a request that raced a reload still gets its answer)", out, err)
	}
}

// TestUndefinedKeepsInstance: an undefined result is an answer, not a
// failure, so the instance that gave it is reused (building one copies the
// whole data image: with 10,000 agents each undefined decision cost ~90
// ms); one whose call aborted is replaced.
func TestUndefinedKeepsInstance(t *testing.T) {
	p, id := compileOne(t, "x := 1 if input.a == 1\nx := 2 if input.b == 1")
	ctx := context.Background()
	idle := func() *instance {
		t.Helper()
		if len(p.idle) != 1 {
			t.Fatalf("%d idle instances, want 1", len(p.idle))
		}
		inst := <-p.idle
		p.idle <- inst
		return inst
	}
	if _, err := p.Eval(ctx, id, []byte(`{"a":1}`), nil); err != nil {
		t.Fatal(err)
	}
	first := idle()
	for range 3 {
		if _, err := p.Eval(ctx, id, []byte(`{"a":2}`), nil); !errors.Is(err, ErrUndefined) {
			t.Fatalf("undefined: %v, want ErrUndefined", err)
		}
		if idle() != first {
			t.Fatal("an undefined result discarded its instance")
		}
	}
	if _, err := p.Eval(ctx, id, []byte(`{"a":1,"b":1}`), nil); err == nil {
		t.Fatal("conflict evaluated")
	}
	if len(p.idle) != 0 {
		t.Fatal("an aborted instance went back to the pool")
	}
	if out, err := p.Eval(ctx, id, []byte(`{"a":1}`), nil); err != nil || string(out) != "1" || idle() == first {
		t.Fatalf("after an abort: %s, %v from the old instance %v", out, err, idle() == first)
	}
}

// TestEvalConcurrent evaluates from many goroutines at once, each needing
// its own instance made from the same image; run with -race.
func TestEvalConcurrent(t *testing.T) {
	p := newShipped(t)
	id, _ := p.Entrypoint("data.wikigate.decision")
	want, err := p.Eval(context.Background(), id, []byte(allowInput), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var out []byte
			for range 50 {
				var err error
				out, err = p.Eval(context.Background(), id, []byte(allowInput), out[:0])
				if err != nil || string(out) != string(want) {
					t.Errorf("concurrent Eval = %s, %v; want %s", out, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCompileRefuses(t *testing.T) {
	modules, _ := loadRego(t, "../../rego")
	ctx := context.Background()
	if _, err := Compile(ctx, modules); err == nil {
		t.Error("Compile without entrypoints succeeded")
	}
	if _, err := Compile(ctx, modules, "data.wikigate.nothing_here"); err == nil {
		t.Error("Compile with an undefined entrypoint succeeded")
	}
	if _, err := New(ctx, []byte("not wasm"), []byte(`{}`)); err == nil {
		t.Error("New on bytes that are not wasm succeeded")
	}
}

func TestEntrypointName(t *testing.T) {
	for in, want := range map[string]string{"data.wikigate.decision": "wikigate/decision", "wikigate/decision": "wikigate/decision"} {
		if got := EntrypointName(in); got != want {
			t.Errorf("EntrypointName(%s) = %s, want %s", in, got, want)
		}
	}
}

const allowInput = `{"endpoint":"/agent/tools/ask","tool":"ask","action":"read","site_mode":"public-read","caller":{"type":"agent","id":"docs-maintainer-agent","anonymous":false,"roles":null,"credential":"jwt"},"scope":{"paths":["publish/system/components/kunora-kgent/guides"],"includeWorkingDocs":false}}`

// BenchmarkEval is one evaluation of the costliest allow, the policy's
// result JSON included, without the policies package around it.
func BenchmarkEval(b *testing.B) {
	ctx := context.Background()
	modules, data := loadRego(b, "../../rego")
	for _, agents := range []int{3, 10_000} {
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			b.Fatal(err)
		}
		all := doc["agents"].(map[string]any)
		for i := 0; len(all) < agents; i++ {
			all[fmt.Sprintf("synthetic-agent-%05d", i)] = all["kunora-coding-agent"]
		}
		raw, _ := json.Marshal(doc)
		wasm, err := Compile(ctx, modules, "data.wikigate.decision")
		if err != nil {
			b.Fatal(err)
		}
		p, err := New(ctx, wasm, raw)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := p.Entrypoint("data.wikigate.decision")
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) {
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				out, err = p.Eval(ctx, id, []byte(allowInput), out[:0])
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(p.image)), "image-bytes")
		})
		p.Close()
	}
}

func TestSingleResult(t *testing.T) {
	for rs, want := range map[string]string{
		`[{"result":{"a":"}],[{"}}]`: `{"a":"}],[{"}`,
		`[{"result":1}]`:             `1`,
		`[{"result":"x\"}"}]`:        `"x\"}"`,
		`[{"result":[1,{"b":[]}]}]`:  `[1,{"b":[]}]`,
		`[{"result":null}]`:          `null`,
	} {
		got, err := singleResult([]byte(rs))
		if err != nil || string(got) != want {
			t.Errorf("singleResult(%s) = %s, %v; want %s", rs, got, err, want)
		}
	}
	if _, err := singleResult([]byte(`[]`)); !errors.Is(err, ErrUndefined) {
		t.Errorf("singleResult([]) = %v, want ErrUndefined", err)
	}
	for _, rs := range []string{
		`[{"result":1},{"result":2}]`, `[{"result":{}},{"result":{}}]`, `[{"result":"a"},{"result":"b"}]`,
		`[{"result":[1]},{"result":[2]}]`, `[{"result":}]`, `{"result":1}`, ``, `[{"result":"x"}`,
	} {
		if got, err := singleResult([]byte(rs)); err == nil || errors.Is(err, ErrUndefined) {
			t.Errorf("singleResult(%s) = %s, %v; want an error", rs, got, err)
		}
	}
}
