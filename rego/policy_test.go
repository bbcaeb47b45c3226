package policy_test

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestRegoPolicies runs every test_* rule of the *_test.rego files beside the
// policies against rego/data.json, so `go test ./rego/...` is all the security
// team needs (no opa binary).
func TestRegoPolicies(t *testing.T) {
	ctx := context.Background()
	modules, store, err := tester.Load([]string{"."}, nil) // the folder as OPA reads it
	if err != nil {
		t.Fatalf("load policies: %v", err)
	}
	txn := storage.NewTransactionOrDie(ctx, store)
	defer store.Abort(ctx, txn)

	results, err := tester.NewRunner().
		SetStore(store).
		SetModules(modules).
		CapturePrintOutput(true).
		RunTests(ctx, txn)
	if err != nil {
		t.Fatalf("run policy tests: %v", err)
	}
	ran := 0
	for r := range results {
		ran++
		t.Run(r.Package+"."+r.Name, func(t *testing.T) {
			if r.Error != nil {
				t.Errorf("%s: %v", r, r.Error)
			} else if !r.Pass() {
				t.Errorf("%s\n%s", r, r.Output)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no test_* rules found in *_test.rego")
	}
}
