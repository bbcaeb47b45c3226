package policies

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Reload reads and compiles the policy directory aside and swaps it in only
// on success. On failure the previous policy keeps serving; the failure is
// logged, counted and kept for LastReloadError (pattern: open-policy-agent/
// eopa pkg/plugins/data/transform/transform.go).
func (e *Engine) Reload(ctx context.Context) error {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()

	next, unchanged, err := e.build(ctx)
	if err != nil {
		e.failures.Add(1)
		e.setLastReloadError(err)
		e.logger.Error("policy reload failed; previous policy keeps serving",
			zap.String("dir", e.dir), zap.String("revision", e.Revision()), zap.Error(err))
		return err
	}
	e.setLastReloadError(nil)
	if unchanged {
		return nil
	}
	previous := e.current.Swap(next)
	e.logger.Info("policy reloaded", zap.String("dir", e.dir),
		zap.String("previous_revision", previous.revision), zap.String("revision", next.revision))
	e.logCacheOff(next)
	return nil
}

// build compiles the directory unless its files are the ones already
// serving, so a watcher woken by unrelated files (README.md, *_test.rego)
// costs one read, not a compile.
func (e *Engine) build(ctx context.Context) (next *prepared, unchanged bool, err error) {
	files, err := readSnapshot(e.dir)
	if err != nil {
		return nil, false, err
	}
	if files.revision() == e.Revision() {
		return nil, true, nil
	}
	next, err = files.compile(ctx, e.query, e.cacheSize)
	if err != nil {
		return nil, false, fmt.Errorf("policy in %s: %w", e.dir, err)
	}
	return next, false, nil
}

// Watch reloads the policy when files under the directory change, after
// changes have been quiet for a short debounce. It returns nil when ctx is
// done, or an error if the directory cannot be watched. Run it in its own
// goroutine (caddy-ratelimit: handler.go sweepRateLimiters).
func (e *Engine) Watch(ctx context.Context) error {
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch policy dir: %w", err)
	}
	defer watcher.Close()
	if err := watchTree(watcher, e.dir); err != nil {
		return fmt.Errorf("watch policy dir: %w", err)
	}

	settle := time.NewTimer(e.debounce)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case event, ok := <-watcher.Events:
			if !ok {
				return nil
			}
			e.watchNewDir(watcher, event)
			settle.Reset(e.debounce)
		case err, ok := <-watcher.Errors:
			if !ok {
				return nil
			}
			e.logger.Warn("policy watcher error", zap.String("dir", e.dir), zap.Error(err))
		case <-settle.C:
			_ = e.Reload(ctx) // logged and counted by Reload
		}
	}
}

// watchNewDir extends the watch to a directory created under the tree, since
// fsnotify watches are not recursive.
func (e *Engine) watchNewDir(watcher *fsnotify.Watcher, event fsnotify.Event) {
	if !event.Has(fsnotify.Create) || strings.HasPrefix(filepath.Base(event.Name), ".") {
		return
	}
	if info, err := os.Stat(event.Name); err != nil || !info.IsDir() {
		return
	}
	if err := watchTree(watcher, event.Name); err != nil {
		e.logger.Warn("cannot watch new policy directory", zap.String("path", event.Name), zap.Error(err))
	}
}

// watchTree adds root and its non-hidden subdirectories to watcher.
func watchTree(watcher *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		return watcher.Add(path)
	})
}
