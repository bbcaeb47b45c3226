// Package wasmeval evaluates a Rego policy compiled to WebAssembly by OPA's
// own compiler (the planner and Wasm target of opa/v1/compile) on wazero, a
// pure-Go Wasm runtime. The Rego stays the source of truth: the same modules
// and data that OPA's topdown evaluator serves are compiled to policy.wasm
// and evaluated through OPA's Wasm ABI (opa_eval, ABI 1.2 or later); the
// built-ins the Wasm library does not implement (sprintf...) are called
// back in Go through topdown's own implementations.
//
// A Wasm instance is single-threaded, so a Policy keeps a pool of
// instances, each with the data parsed into its memory once; an evaluation
// takes one, resets its heap, evaluates and gives it back.
package wasmeval

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/compile"
)

// Compile compiles modules (file name → parsed module) to policy.wasm with
// one entrypoint per query ("data.wikigate.decision" or the slash form
// "wikigate/decision"). The modules are copied: the caller's stay as they
// were. Data is not compiled in; it is loaded into each instance by New.
func Compile(ctx context.Context, modules map[string]*ast.Module, queries ...string) ([]byte, error) {
	if len(queries) == 0 {
		return nil, fmt.Errorf("compile policy to wasm: no entrypoint")
	}
	b := &bundle.Bundle{Data: map[string]any{}}
	b.SetRegoVersion(ast.RegoV1)
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		path := "/" + strings.TrimPrefix(name, "/")
		module := modules[name].Copy()
		if module.Package.Path.String() == "data."+orderedPackage {
			return nil, fmt.Errorf("compile policy to wasm: package %s is reserved", orderedPackage)
		}
		orderSetsForConcat(module)
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: path, Path: path, Parsed: module})
	}
	helper, err := ast.ParseModuleWithOpts(orderedPackage+".rego", orderedModule, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("compile policy to wasm: %w", err)
	}
	b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + orderedPackage + ".rego", Path: "/" + orderedPackage + ".rego", Parsed: helper})
	b.Manifest.Init()
	entrypoints := make([]string, len(queries))
	for i, q := range queries {
		entrypoints[i] = EntrypointName(q)
	}
	c := compile.New().
		WithTarget(compile.TargetWasm).
		WithRegoVersion(ast.RegoV1).
		WithBundle(b).
		WithEntrypoints(entrypoints...)
	if err := c.Build(ctx); err != nil {
		return nil, fmt.Errorf("compile policy to wasm: %w", err)
	}
	out := c.Bundle()
	if out == nil || len(out.WasmModules) != 1 {
		return nil, fmt.Errorf("compile policy to wasm: no wasm module built")
	}
	return bytes.Clone(out.WasmModules[0].Raw), nil
}

// EntrypointName is query in the form the Wasm compiler names its
// entrypoints: "data.wikigate.decision" → "wikigate/decision".
func EntrypointName(query string) string {
	q := strings.TrimPrefix(query, "data.")
	return strings.ReplaceAll(q, ".", "/")
}
