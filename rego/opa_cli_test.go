package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
)

// The policy folder and the input schema as a user names them from the
// repository root (rego/README.md, Testing).
const (
	policyFolder = "."
	inputSchema  = "../policyschema/input.json"
)

// TestOPAToolsReadTheFolderWithoutIgnore does what `opa test rego`,
// `opa check --schema policyschema/input.json rego` and `opa eval -d rego
// --schema policyschema/input.json -i call.json data.wikigate.decision`
// do, with the same OPA loader and compiler calls and no filter (no
// --ignore): the folder holds policy, data and tests only. With the
// schemas in rego/schema, every JSON file of that folder was loaded as
// data.schema and each of them stopped at a merge error.
func TestOPAToolsReadTheFolderWithoutIgnore(t *testing.T) {
	ctx := context.Background()
	t.Run("opa test", func(t *testing.T) {
		modules, store, err := tester.Load([]string{policyFolder}, nil)
		if err != nil {
			t.Fatalf("load (as opa test): %v", err)
		}
		txn := storage.NewTransactionOrDie(ctx, store)
		defer store.Abort(ctx, txn)
		results, err := tester.NewRunner().SetStore(store).SetModules(modules).RunTests(ctx, txn)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r := range results {
			n++
			if r.Error != nil || r.Fail {
				t.Errorf("%s fails under opa test", r)
			}
		}
		if n == 0 {
			t.Fatal("opa test ran nothing")
		}
	})
	ss, err := loader.Schemas(inputSchema)
	if err != nil {
		t.Fatalf("--schema %s: %v", inputSchema, err)
	}
	t.Run("opa check --schema", func(t *testing.T) {
		res, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).WithProcessAnnotation(true).All([]string{policyFolder})
		if err != nil {
			t.Fatalf("load (as opa check): %v", err)
		}
		c := ast.NewCompiler().WithSchemas(ss).WithUseTypeCheckAnnotations(true).WithEnablePrintStatements(true)
		if c.Compile(res.ParsedModules()); c.Failed() {
			t.Fatalf("opa check: %v", c.Errors)
		}
	})
	t.Run("opa eval -d", func(t *testing.T) {
		var in any
		if err := json.Unmarshal([]byte(toolGateCall), &in); err != nil {
			t.Fatal(err)
		}
		rs, err := rego.New(rego.Query("data.wikigate.tool_decision"), rego.Load([]string{policyFolder}, nil),
			rego.Schemas(ss), rego.Input(in)).Eval(ctx)
		if err != nil {
			t.Fatalf("opa eval -d: %v", err)
		}
		if len(rs) != 1 || !strings.Contains(jsonOf(t, rs[0].Expressions[0].Value), `"allow":true`) {
			t.Fatalf("opa eval: %v, want the coding agent's search allowed", rs)
		}
	})
	if _, err := os.Stat("schema"); err == nil {
		t.Error("rego/schema is back: OPA's tools would load it as data.schema")
	}
}

// toolGateCall is the call rego/README.md shows for opa eval.
const toolGateCall = `{"endpoint": "/agent/tools/search", "tool": "search", "action": "read",
 "site_mode": "public-read", "scope": null,
 "caller": {"type": "agent", "id": "kunora-coding-agent", "anonymous": false,
            "roles": null, "credential": "jwt"}}`

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
