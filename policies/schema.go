package policies

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/wikigate/wikigate/policyschema"
)

// policySchemas hands rego/schema to OPA's type checker: input.json as the
// global input schema (what `opa eval --schema input.json` does), and both
// schemas under schema.input and schema.decision, so a module may also name
// them in a METADATA schemas annotation. The input schema closes every
// object, so a reference to a field the gate never sends (input.scope.paht)
// is a type error at load, not a rule that is silently never true.
var policySchemas = mustSchemaSet()

func mustSchemaSet() *ast.SchemaSet {
	ss := ast.NewSchemaSet()
	for ref, raw := range map[string][]byte{"": policyschema.Input, "schema.input": policyschema.Input, "schema.decision": policyschema.Decision} {
		var doc any
		if err := util.UnmarshalJSON(raw, &doc); err != nil {
			panic(fmt.Sprintf("rego/schema: %v", err)) // embedded at build time: a bad file fails every test
		}
		path := ast.SchemaRootRef
		if ref != "" {
			path = ast.MustParseRef(ref)
		}
		ss.Put(path, doc)
	}
	return ss
}

// compileTyped compiles modules with type checking against the schemas.
// Errors carry the compiler's own text, e.g.
//
//	decision.rego:12: rego_type_error: undefined ref: input.scope.paht
func compileTyped(modules map[string]*ast.Module) (*ast.Compiler, error) {
	c := ast.NewCompiler().WithSchemas(policySchemas).WithUseTypeCheckAnnotations(true)
	c.Compile(modules)
	if c.Failed() {
		return nil, c.Errors
	}
	return c, nil
}

// CheckDir compiles the policy folder dir as the gate loads it, type
// checking included, without running its tests (`wikigate policy build`
// checks this first, so a typo is reported as one and not as the tests it
// makes fail).
func CheckDir(ctx context.Context, dir string) error {
	c, err := dirCandidate(dir)
	if err != nil {
		return err
	}
	if _, err := c.files.compile(ctx, DefaultQuery, -1, EvaluatorTopdown, nil); err != nil {
		return fmt.Errorf("policy in %s: %w", dir, err)
	}
	return nil
}
