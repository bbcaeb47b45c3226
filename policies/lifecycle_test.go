package policies_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// failOneTest adds a test that fails to dir and returns its name.
func failOneTest(t *testing.T, dir string) string {
	t.Helper()
	writeFile(t, dir, "zz_lifecycle_test.rego", "package wikigate_test\n\nimport data.wikigate\n\ntest_coding_agent_is_unknown if {\n\tnot data.agents[\"kunora-coding-agent\"]\n}\n")
	return "wikigate_test.test_coding_agent_is_unknown"
}

type recorder struct{ outcomes, revisions []string }

func (r *recorder) PolicyReload(o string)      { r.outcomes = append(r.outcomes, o) }
func (r *recorder) PolicyRevision(v, _ string) { r.revisions = append(r.revisions, v) }

func TestReloadRefusesAPolicyWhoseTestsFail(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDirWithTests(t)
	rec := &recorder{}
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Observer: rec})
	if err != nil {
		t.Fatalf("the shipped policy and its tests must load: %v", err)
	}
	before := engine.Revision()
	original, err := os.ReadFile(filepath.Join(dir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}

	// A policy edit that compiles but breaks the team's own tests.
	editData(t, dir, disableAgent("kunora-coding-agent"))
	err = engine.Reload(t.Context())
	var tf *policies.TestsFailedError
	if !errors.As(err, &tf) || len(tf.Tests) == 0 {
		t.Fatalf("Reload = %v, want the failing tests", err)
	}
	if engine.Revision() != before || !decideCodingSearch(t, engine).Allow {
		t.Fatalf("the last good policy must keep serving: revision %s, want %s", engine.Revision(), before)
	}
	if !slices.Contains(engine.FailingTests(), "wikigate_test.test_known_agent_allowed") {
		t.Errorf("FailingTests = %v, want test_known_agent_allowed among them", engine.FailingTests())
	}
	if engine.ReloadFailures() != 1 {
		t.Errorf("ReloadFailures = %d", engine.ReloadFailures())
	}
	// The same failing files seen again are not refused (or counted) twice.
	_ = engine.Reload(t.Context())
	if engine.ReloadFailures() != 1 {
		t.Errorf("the same refused candidate counted again: %d", engine.ReloadFailures())
	}

	// The team fixes it: the policy is back, the error clears.
	writeFile(t, dir, "data.json", string(original))
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload after the fix: %v", err)
	}
	if engine.LastReloadError() != nil || engine.FailingTests() != nil || engine.Revision() != before {
		t.Errorf("after the fix: err=%v failing=%v revision=%s", engine.LastReloadError(), engine.FailingTests(), engine.Revision())
	}
	if !slices.Equal(rec.outcomes, []string{policies.ReloadTestsFailed}) || !slices.Equal(rec.revisions, []string{before}) {
		t.Errorf("observer saw outcomes %v revisions %v", rec.outcomes, rec.revisions)
	}
}

func TestReloadActivatesAPolicyWhoseTestsPass(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDirWithTests(t)
	rec := &recorder{}
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "zz_extra.rego", "package wikigate\n\nlifecycle_marker := true\n")
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if len(rec.revisions) != 2 || rec.revisions[1] != engine.Revision() || rec.outcomes[0] != policies.ReloadActivated {
		t.Errorf("observer saw outcomes %v revisions %v", rec.outcomes, rec.revisions)
	}
}

func TestStartFailsNamingFailingTests(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDirWithTests(t)
	name := failOneTest(t, dir)
	_, err := policies.New(t.Context(), policies.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "zz_lifecycle_test.rego:5") {
		t.Fatalf("New = %v, want a failure naming %s and where it is", err, name)
	}
	// require_tests off: the same files serve.
	if _, err := policies.New(t.Context(), policies.Options{Dir: dir, SkipTests: true}); err != nil {
		t.Fatalf("SkipTests: %v", err)
	}
}

func TestRunTestsOnTheShippedPolicy(t *testing.T) {
	t.Parallel()
	tf, err := policies.RunTests(t.Context(), defaultPolicyDir)
	if err != nil || tf != nil {
		t.Fatalf("RunTests(rego/) = %v, %v", tf, err)
	}
	dir := copyPolicyDirWithTests(t)
	name := failOneTest(t, dir)
	tf, err = policies.RunTests(t.Context(), dir)
	if err != nil || tf == nil || !slices.Equal(tf.Tests, []string{name}) {
		t.Fatalf("RunTests = %v, %v; want exactly %s", tf, err, name)
	}
}
