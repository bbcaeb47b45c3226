package policies_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWatchRunsATestOnlyEdit: an edit to a *_test.rego alone (the served
// policy unchanged) runs the tests; a failing one is reported as a refused
// reload (LastReloadError, FailingTests, ReloadFailures: what /healthz
// shows) while the same policy keeps serving, and fixing it clears that.
func TestWatchRunsATestOnlyEdit(t *testing.T) {
	dir := copyPolicyDirWithTests(t)
	engine := newEngine(t, dir)
	revision := engine.Revision()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go engine.Watch(ctx)

	broken := `package wikigate_test

test_broken_on_purpose if false
`
	waitFor(t, "the failing test-only edit", func() bool {
		writeFile(t, dir, "broken_test.rego", broken) // until the watcher is up
		broken += "\n"
		time.Sleep(400 * time.Millisecond) // past the debounce
		return slices.Contains(engine.FailingTests(), "wikigate_test.test_broken_on_purpose")
	})
	if engine.LastReloadError() == nil || engine.ReloadFailures() == 0 {
		t.Errorf("failing test-only edit: error %v, %d reload failures; want both", engine.LastReloadError(), engine.ReloadFailures())
	}
	if engine.Revision() != revision {
		t.Errorf("revision moved from %s to %s on a test-only edit", revision, engine.Revision())
	}
	if d := decideCodingSearch(t, engine); !d.Allow {
		t.Errorf("the serving policy changed: coding agent's search denied (%s)", d.Code)
	}

	if err := os.Remove(filepath.Join(dir, "broken_test.rego")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "removing the failing test", func() bool { return engine.LastReloadError() == nil })
}
