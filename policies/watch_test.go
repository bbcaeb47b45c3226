package policies_test

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
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

// TestWatchFollowsAReplacedDir replaces the watched directory as a
// deployment would (moved aside or removed, then a new one renamed into
// place): the watch must follow the path, reload the new policy, and keep
// reloading on later edits of it.
func TestWatchFollowsAReplacedDir(t *testing.T) {
	replacements := map[string]func(dir string, logs *observer.ObservedLogs) error{
		"moved aside": func(dir string, _ *observer.ObservedLogs) error { return os.Rename(dir, dir+".old") },
		"removed":     func(dir string, _ *observer.ObservedLogs) error { return os.RemoveAll(dir) },
		"removed, back after the watcher noticed": func(dir string, logs *observer.ObservedLogs) error {
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
			waitFor(t, "noticing the removal", func() bool { return logs.FilterMessageSnippet("waiting for it to reappear").Len() > 0 })
			return nil
		},
	}
	for name, takeAway := range replacements {
		t.Run(name, func(t *testing.T) {
			dir := copyPolicyDir(t)
			core, logs := observer.New(zap.InfoLevel)
			engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.New(core)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() { _ = engine.Watch(ctx) }()
			waitForEdit(t, engine, dir, disableAgent("ops-readonly-agent")) // the watch is up

			replacement := copyPolicyDir(t)
			editData(t, replacement, disableAgent("kunora-coding-agent"))
			if err := takeAway(dir, logs); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(replacement, dir); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the replacement policy", func() bool {
				return decideCodingSearch(t, engine).Code == protocol.CodeUnauthorized
			})
			if logs.FilterMessageSnippet("watched again").Len() == 0 {
				t.Errorf("re-watching the directory was not logged; logs: %v", logs.All())
			}

			// Only a watch of the new directory sees this edit.
			editData(t, dir, func(data map[string]any) {
				agents := data["agents"].(map[string]any)
				agents["kunora-coding-agent"].(map[string]any)["disabled"] = false
			})
			waitFor(t, "an edit of the replacement", func() bool { return decideCodingSearch(t, engine).Allow })
		})
	}
}

// waitForEdit keeps applying edit until the engine reloads: edits made
// before the watcher is registered are not seen. Edits are spaced wider
// than the debounce, which each one would otherwise restart.
func waitForEdit(t *testing.T, engine *policies.Engine, dir string, edit func(map[string]any)) {
	t.Helper()
	before := engine.Revision()
	waitFor(t, "the first watched edit", func() bool {
		editData(t, dir, edit)
		time.Sleep(400 * time.Millisecond)
		return engine.Revision() != before
	})
}

// waitFor polls done; the deadline only bounds a hang.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s not applied within 10s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
