package policies_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

func decideCodingSearch(t *testing.T, engine *policies.Engine) policies.Decision {
	t.Helper()
	d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search", nil))
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	return d
}

func TestReloadAppliesEditedData(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	before := engine.Revision()
	if d := decideCodingSearch(t, engine); !d.Allow {
		t.Fatalf("shipped policy denies: %s", d.Reason)
	}

	editData(t, dir, disableAgent("kunora-coding-agent"))
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload: %v", err)
	}

	d := decideCodingSearch(t, engine)
	if d.Allow || d.Code != protocol.CodeUnauthorized {
		t.Errorf("after disabling the agent: allow=%v code=%q, want unauthorized", d.Allow, d.Code)
	}
	if engine.Revision() == before || d.Revision != engine.Revision() {
		t.Errorf("revision %q (decision %q), want a new one after %q", engine.Revision(), d.Revision, before)
	}
	if engine.LastReloadError() != nil || engine.ReloadFailures() != 0 {
		t.Errorf("LastReloadError=%v ReloadFailures=%d after a good reload", engine.LastReloadError(), engine.ReloadFailures())
	}
}

func TestReloadKeepsServingOnBrokenPolicy(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	core, logs := observer.New(zap.InfoLevel)
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	before := engine.Revision()

	writeFile(t, dir, "broken.rego", "package wikigate\n\nbroken := {\n")
	err = engine.Reload(t.Context())
	if err == nil || !strings.Contains(err.Error(), "rego_parse_error") {
		t.Fatalf("Reload error = %v, want the parser's message", err)
	}
	if engine.ReloadFailures() != 1 || engine.LastReloadError() == nil {
		t.Errorf("ReloadFailures=%d LastReloadError=%v, want 1 and the error", engine.ReloadFailures(), engine.LastReloadError())
	}
	if logs.FilterMessageSnippet("reload failed").Len() != 1 {
		t.Errorf("reload failure not logged; logs: %v", logs.All())
	}
	if d := decideCodingSearch(t, engine); !d.Allow || d.Revision != before {
		t.Errorf("old policy not serving: allow=%v revision=%q, want allow with %q", d.Allow, d.Revision, before)
	}

	if err := os.Remove(filepath.Join(dir, "broken.rego")); err != nil {
		t.Fatal(err)
	}
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload after the fix: %v", err)
	}
	if engine.LastReloadError() != nil || engine.ReloadFailures() != 1 || engine.Revision() != before {
		t.Errorf("after the fix: LastReloadError=%v ReloadFailures=%d revision=%q", engine.LastReloadError(), engine.ReloadFailures(), engine.Revision())
	}
}

func TestRevisionIgnoresPolicyTests(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	before := engine.Revision()
	// Other files are not part of the served policy.
	writeFile(t, dir, "NOTES.md", "not policy")
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if engine.Revision() != before {
		t.Errorf("revision changed from %q to %q for a non-policy file", before, engine.Revision())
	}
	// Nor is a test file: a broken one is reported (the tests run on a
	// test-only edit) while the same revision keeps serving.
	writeFile(t, dir, "extra_test.rego", "package wikigate_test\n\ntest_x if {\n")
	err := engine.Reload(t.Context())
	if err == nil || !strings.Contains(err.Error(), "extra_test.rego") {
		t.Errorf("Reload with a broken test file: %v, want the file named", err)
	}
	if engine.Revision() != before {
		t.Errorf("revision changed from %q to %q for a test file", before, engine.Revision())
	}
	if d := decideCodingSearch(t, engine); !d.Allow || d.Revision != before {
		t.Errorf("policy not serving after a broken test file: allow=%v revision=%q", d.Allow, d.Revision)
	}
}

func TestNewRejectsBrokenPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		query   string
		wantErr []string
	}{
		{
			name:    "syntax error",
			files:   map[string]string{"policy.rego": "package wikigate\n\ndecision := {\n"},
			wantErr: []string{"policy.rego", "rego_parse_error"},
		},
		{
			name:    "unsafe variable",
			files:   map[string]string{"policy.rego": "package wikigate\n\ndecision := x if input.y\n"},
			wantErr: []string{"policy.rego:3", "rego_unsafe_var_error", "var x is unsafe"},
		},
		{
			name:    "malformed data",
			files:   map[string]string{"policy.rego": "package wikigate\n\ndecision := 1\n", "data.json": "{"},
			wantErr: []string{"data.json"},
		},
		{
			name:    "no policy files",
			files:   map[string]string{"data.json": "{}"},
			wantErr: []string{"no policy"},
		},
		{
			name:    "query without a rule",
			files:   map[string]string{"policy.rego": "package other\n\ndecision := 1\n"},
			wantErr: []string{"no rule for query data.wikigate.decision"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				writeFile(t, dir, name, content)
			}
			_, err := policies.New(t.Context(), policies.Options{Dir: dir, Query: tc.query})
			if err == nil {
				t.Fatal("New succeeded on a broken policy")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNewRejectsMissingDir(t *testing.T) {
	t.Parallel()
	if _, err := policies.New(t.Context(), policies.Options{Dir: filepath.Join(t.TempDir(), "absent")}); err == nil {
		t.Error("New succeeded without a policy dir")
	}
	if _, err := policies.New(t.Context(), policies.Options{}); err == nil {
		t.Error("New succeeded with an empty Dir")
	}
}

func TestNewLoadsNestedData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", "package wikigate\n\ndecision := data.x_nested.decision\n")
	writeFile(t, dir, "x_nested/data.yaml", "decision:\n  allow: false\n  code: forbidden_tool\n  reason: from yaml\n")
	engine := newEngine(t, dir)
	d, err := engine.Decide(t.Context(), agentCall("a", "search", nil))
	if err != nil || d.Code != protocol.CodeForbiddenTool || d.Reason != "from yaml" {
		t.Fatalf("Decide = %+v, %v; want the YAML data's deny", d, err)
	}
}

// TestDecideDuringReload checks that requests racing a reload see either the
// old or the new policy, never a half-built one.
func TestDecideDuringReload(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search", nil))
				if err != nil || (!d.Allow && d.Code != protocol.CodeUnauthorized) {
					t.Errorf("Decide during reload = %+v, %v", d, err)
					return
				}
			}
		})
	}
	editData(t, dir, disableAgent("kunora-coding-agent"))
	if err := engine.Reload(t.Context()); err != nil {
		t.Errorf("Reload: %v", err)
	}
	wg.Wait()
}
