package wasmeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// Topdown iterates a set in sorted order; OPA's Wasm library iterates it in
// hash order. Most built-ins do not care, but concat joins a set's strings
// in iteration order, so concat("; ", problems) over a set of problems
// would word a denial's reason differently under Wasm (the differential
// test caught exactly that). Before compiling to Wasm, every concat's
// collection is passed through orderedRef, a Rego function that sorts a set
// and leaves anything else alone, which is what topdown's concat sees. The
// policy's own modules are untouched; only the copies compiled to Wasm are.
//
// Not corrected: a set or an object whose iteration order reaches the
// result in another way (a set in the result, which JSON writes as a list;
// an array comprehension over a set or an object; json.marshal of one)
// lists the same elements in another order than topdown. The shipped
// policy builds its decision from arrays only; rego/README.md asks the
// policy's authors to keep it so, and the differential test
// (policies/wasm_differential_test.go) catches a change that does not.

// orderedPackage holds the helper; no policy may define it.
const orderedPackage = "wasmeval_internal"

var orderedRef = ast.MustParseRef("data." + orderedPackage + ".ordered")

// orderedModule is the helper, parsed once per compile.
const orderedModule = `package ` + orderedPackage + `

ordered(x) := sort(x) if {
	is_set(x)
} else := x
`

// orderSetsForConcat rewrites module in place: concat(d, c) becomes
// concat(d, data.wasmeval_internal.ordered(c)).
func orderSetsForConcat(module *ast.Module) {
	concat := ast.Concat.Ref()
	wrap := func(t *ast.Term) *ast.Term {
		return ast.CallTerm(ast.NewTerm(orderedRef.Copy()), t)
	}
	ast.WalkExprs(module, func(e *ast.Expr) bool {
		if terms, ok := e.Terms.([]*ast.Term); ok && len(terms) >= 3 && e.IsCall() && e.Operator().Equal(concat) {
			terms[2] = wrap(terms[2])
		}
		return false
	})
	ast.WalkTerms(module, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok && len(call) >= 3 {
			if op, ok := call[0].Value.(ast.Ref); ok && op.Equal(concat) {
				call[2] = wrap(call[2])
			}
		}
		return false
	})
}
