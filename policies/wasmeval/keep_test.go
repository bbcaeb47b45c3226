package wasmeval

import (
	"bytes"
	"context"
	"testing"
)

// keptWasm lists the modules kept compiled, least recently loaded first.
func keptWasm() [][]byte {
	kept.mu.Lock()
	defer kept.mu.Unlock()
	var out [][]byte
	for _, m := range kept.modules {
		out = append(out, m.wasm)
	}
	return out
}

// The modules kept compiled are the last keptModules distinct ones loaded,
// and a policy whose module was let go still evaluates, on instances it
// makes after that too (wazero compiles the module again for them).
func TestKeptModulesAreTheLastLoaded(t *testing.T) {
	a, aID := compileOne(t, `x := input.n + 1`)
	b, _ := compileOne(t, `x := input.n + 2`)
	if got := keptWasm(); len(got) != 2 || !bytes.Equal(got[0], a.wasm) || !bytes.Equal(got[1], b.wasm) {
		t.Fatalf("kept %d modules, want a then b", len(got))
	}
	again, err := New(context.Background(), a.wasm, []byte(`{}`)) // a again: now the most recent
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if got := keptWasm(); !bytes.Equal(got[1], a.wasm) || !bytes.Equal(got[0], b.wasm) {
		t.Fatal("loading a again did not make it the most recent")
	}
	c, _ := compileOne(t, `x := input.n + 3`)
	if got := keptWasm(); len(got) != keptModules || !bytes.Equal(got[0], a.wasm) || !bytes.Equal(got[1], c.wasm) {
		t.Fatalf("after a third module: kept %d, want a then c (b let go)", len(got))
	}
	compileOne(t, `x := input.n + 4`) // lets a go
	for _, m := range keptWasm() {
		if bytes.Equal(m, a.wasm) {
			t.Fatal("a is still kept")
		}
	}
	// a's policy makes a fresh instance (its idle one is discarded) and
	// still answers.
	a.Close()
	out, err := a.Eval(context.Background(), aID, []byte(`{"n":41}`), nil)
	if err != nil || string(out) != "42" {
		t.Fatalf("a after its module was let go: %s %v", out, err)
	}
}

// BenchmarkNewShippedAgain is loading the shipped policy again after the
// previous load closed, as a reload whose Rego did not change (a data-only
// edit) does: the module is kept compiled, so this is the data image and
// the first instance.
func BenchmarkNewShippedAgain(b *testing.B) {
	ctx := context.Background()
	modules, data := loadRego(b, "../../rego")
	wasm, err := Compile(ctx, modules, "data.wikigate.decision", "data.wikigate.tool_decision")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := New(ctx, wasm, data)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
