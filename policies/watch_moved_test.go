package policies_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchReloadsAFileMovedIntoPlace is the edit `wikigate project` prints:
// the new data is written elsewhere and moved over data.json (`jq … >
// data.new && mv data.new rego/data.json`), an IN_MOVED_TO rather than a
// write of the watched file.
func TestWatchReloadsAFileMovedIntoPlace(t *testing.T) {
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	before := engine.Revision()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = engine.Watch(ctx) }()

	elsewhere := t.TempDir()
	deadline := time.Now().Add(10 * time.Second)
	for engine.Revision() == before {
		if time.Now().After(deadline) {
			t.Fatal("policy not reloaded within 10s of moving new data over data.json")
		}
		copyFile(t, filepath.Join(dir, "data.json"), filepath.Join(elsewhere, "data.json"))
		editData(t, elsewhere, disableAgent("kunora-coding-agent"))
		if err := os.Rename(filepath.Join(elsewhere, "data.json"), filepath.Join(dir, "data.json")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if d := decideCodingSearch(t, engine); d.Allow {
		t.Errorf("after the moved-in data: allow=%v, want the disabled agent denied", d.Allow)
	}
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
