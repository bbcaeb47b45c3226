package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opsMainApproved is kunora-ops' main approved dataset in rego/data.json.
const opsMainApproved = "d06408b607f9ccc5443901ca42ee7da3"

// withMissingDatasets is a copy of the shipped policy whose catalog names,
// in place of each given dataset, one RAGFlow does not have (a catalog
// left from another install).
func withMissingDatasets(t *testing.T, ids ...string) string {
	t.Helper()
	dir := copyDir(t, "../rego")
	file := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data := string(raw)
	for i, id := range ids {
		if !strings.Contains(data, id) {
			t.Fatalf("rego/data.json no longer names %s; update this test", id)
		}
		data = strings.ReplaceAll(data, id, strings.Repeat(string(rune('a'+i)), 32))
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDefaultScopeNamingMissingDatasets: search and ask treat a dataset
// the catalog names but RAGFlow lacks as a dataset with no pages. With one
// of the default scope's datasets missing, an anonymous question is
// answered from the others (it was 503 ragflow_unavailable); with all of
// them missing it is answered "no answer" (200), as search answers a
// project without pages with 0 hits, never a 503.
func TestDefaultScopeNamingMissingDatasets(t *testing.T) {
	g := startGate(t, gateOptions{policyDir: withMissingDatasets(t, opsMainApproved)})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 200 || len(r.json(t)["citations"].([]any)) == 0 {
		t.Fatalf("ask with one default dataset missing: %d %s", r.Status, r.Body)
	}

	g = startGate(t, gateOptions{policyDir: withMissingDatasets(t, opsMainApproved, kgentMainApproved, gatewayMainApprove)})
	r = g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 200 || len(r.json(t)["citations"].([]any)) != 0 {
		t.Fatalf("ask with every default dataset missing: %d %s", r.Status, r.Body)
	}
	s := g.post("/answer/search", nil, `{"question":"agent memory"}`)
	if s.Status != 200 {
		t.Fatalf("search with every default dataset missing: %d %s", s.Status, s.Body)
	}
}
