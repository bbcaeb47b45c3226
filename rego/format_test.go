package policy_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// TestRegoFilesAreFormatted fails when a shipped .rego file is not as OPA's
// formatter writes it, so `opa fmt --fail rego` (and editors running it on
// save) find nothing to change. Fix with `opa fmt -w rego`.
func TestRegoFilesAreFormatted(t *testing.T) {
	files, err := filepath.Glob("*.rego")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .rego files here: %v", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(src, want) {
			t.Errorf("%s is not formatted as opa fmt writes it (run opa fmt -w rego)", name)
		}
	}
}
