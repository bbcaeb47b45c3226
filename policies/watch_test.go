package policies_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

func TestWatchReloadsEditedPolicy(t *testing.T) {
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	before := engine.Revision()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- engine.Watch(ctx) }()

	// Edits made before the watcher is registered are not seen, so keep
	// editing until the revision moves; the deadline only bounds a hang.
	deadline := time.Now().Add(5 * time.Second)
	for engine.Revision() == before {
		if time.Now().After(deadline) {
			t.Fatal("policy not reloaded within 5s of editing it")
		}
		editData(t, dir, disableAgent("kunora-coding-agent"))
		time.Sleep(300 * time.Millisecond)
	}
	if d := decideCodingSearch(t, engine); d.Allow || d.Code != protocol.CodeUnauthorized {
		t.Errorf("after the watched edit: allow=%v code=%q, want unauthorized", d.Allow, d.Code)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Watch returned %v after cancel, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after its context was cancelled")
	}
}

func TestWatchRejectsMissingDir(t *testing.T) {
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := engine.Watch(t.Context()); err == nil {
		t.Error("Watch succeeded on a missing directory")
	}
}
