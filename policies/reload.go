package policies

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Reload reads the source's candidate, compiles it aside, runs its tests
// and swaps it in only when all of that succeeds. On failure the previous
// policy keeps serving; the failure is logged, counted and kept for
// LastReloadError (pattern: open-policy-agent/eopa pkg/plugins/data/
// transform/transform.go).
func (e *Engine) Reload(ctx context.Context) error {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()

	c, err := e.src.read(ctx)
	if err != nil {
		return e.failedRead(err)
	}
	if c == nil || c.key == e.current.Load().key {
		if c != nil {
			if err := e.retest(ctx, c); err != nil {
				return err
			}
		}
		if c != nil && c.activated != nil {
			c.activated()
		}
		e.failedDigest = ""
		e.setLastReloadError(nil)
		return nil
	}
	if c.digest == e.failedDigest {
		return e.LastReloadError() // refused already: logged and counted once
	}
	next, err := c.build(ctx, e.buildOptions())
	if err != nil {
		e.failedDigest = c.digest
		return e.failed(err)
	}
	e.warm(ctx, e.current.Load(), next)
	e.activate(c, next)
	return nil
}

// retest runs the tests of a candidate whose served files are those
// already serving: an edit to a *_test.rego alone changes no decision, but
// a test it breaks must show (logged, counted, in /healthz) now, not at
// the next unrelated data edit. The policy serving stays either way. Tests
// that passed before are not run again (testsPassed remembers them).
func (e *Engine) retest(ctx context.Context, c *candidate) error {
	if !e.testsRan(c) {
		return nil
	}
	if c.digest == e.failedDigest {
		return e.LastReloadError() // refused already: logged and counted once
	}
	if err := c.test(ctx); err != nil {
		e.failedDigest = c.digest
		return e.failed(err)
	}
	return nil
}

// failed records a reload that left the previous policy serving.
func (e *Engine) failed(err error) error {
	outcome := outcomeOf(err)
	e.failures.Add(1)
	e.setLastReloadError(err)
	e.observer.PolicyReload(outcome)
	e.logger.Error("policy reload failed; previous policy keeps serving",
		zap.Stringer("source", e.src), zap.String("outcome", outcome),
		zap.String("revision", e.Revision()), zap.Strings("failing_tests", failingTests(err)), zap.Error(err))
	return err
}

// testsRan says whether c's policy tests held it to them: tests are on
// and c has some (a bundle carries none, so it is served untested).
func (e *Engine) testsRan(c *candidate) bool { return e.runTests && len(c.tests) > 0 }

// activate swaps next in.
func (e *Engine) activate(c *candidate, next *prepared) {
	previous := e.current.Swap(next)
	previous.wasm.close()
	e.keep(next)
	if c.activated != nil {
		c.activated()
	}
	e.failedDigest = ""
	e.setLastReloadError(nil)
	e.observer.PolicyReload(ReloadActivated)
	e.observer.PolicyRevision(next.revision, next.evaluatorName())
	e.logger.Info("policy reloaded", zap.Stringer("source", e.src), zap.Bool("tests_run", e.testsRan(c)),
		zap.String("previous_revision", previous.revision), zap.String("revision", next.revision))
	e.logCacheOff(next)
	e.logEvaluator(next)
	e.logToolGateMissing(next)
}

// FailingTests names the tests of the last refused candidate when its
// tests were what refused it; nil otherwise.
func (e *Engine) FailingTests() []string {
	return failingTests(e.LastReloadError())
}

func failingTests(err error) []string {
	var tf *TestsFailedError
	if errors.As(err, &tf) {
		return tf.Tests
	}
	return nil
}

// Watch reloads the policy when files under the directory change, after
// changes have been quiet for a short debounce. When the directory itself
// is removed or renamed (a ConfigMap swap, `mv new-rego rego`), its watch is
// gone with it: Watch then waits for the directory to reappear (rewatch),
// watches the new one and reloads from it, so later edits keep applying. It
// returns nil when ctx is done, or an error if the directory cannot be
// watched at the start. Run it in its own goroutine (caddy-ratelimit:
// handler.go sweepRateLimiters).
func (e *Engine) Watch(ctx context.Context) error {
	if e.dir == "" {
		return e.poll(ctx)
	}
	watcher, err := newTreeWatcher(e.dir)
	if err != nil {
		return fmt.Errorf("watch policy dir: %w", err)
	}
	defer func() { watcher.Close() }()

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
			if e.isRootGone(event) {
				watcher.Close()
				if watcher = e.rewatch(ctx); watcher == nil {
					return nil
				}
			} else {
				e.watchNewDir(watcher, event)
			}
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

// Bounds of the wait between looks for a policy directory that went away:
// the first look is soon (a rename-into-place is usually done by then),
// later ones back off to at most rewatchMaxWait.
const (
	rewatchFirstWait = 50 * time.Millisecond
	rewatchMaxWait   = 5 * time.Second
)

// isRootGone reports whether event removed or renamed the watched directory
// itself. inotify drops the watch of a removed or moved directory, so no
// later change under the path would be seen without a new watch.
func (e *Engine) isRootGone(event fsnotify.Event) bool {
	return filepath.Clean(event.Name) == filepath.Clean(e.dir) &&
		(event.Has(fsnotify.Remove) || event.Has(fsnotify.Rename))
}

// rewatch waits, with a bounded backoff, until the policy directory exists
// again and can be watched, and returns a fresh watcher of its tree (the
// old watcher may still hold watches of the moved-away tree's
// subdirectories). It returns nil when ctx is done first. Meanwhile the
// loaded policy keeps serving.
func (e *Engine) rewatch(ctx context.Context) *fsnotify.Watcher {
	e.logger.Warn("policy directory removed or replaced; waiting for it to reappear",
		zap.String("dir", e.dir), zap.String("revision", e.Revision()))
	wait := rewatchFirstWait
	for {
		watcher, err := newTreeWatcher(e.dir)
		if err == nil {
			e.logger.Info("policy directory watched again", zap.String("dir", e.dir))
			return watcher
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, rewatchMaxWait)
	}
}

// newTreeWatcher watches root and its subdirectories. root must be a
// directory: a watch of a file in its place would never report the
// policy's files.
func newTreeWatcher(root string) (*fsnotify.Watcher, error) {
	if info, err := os.Stat(root); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := watchTree(watcher, root); err != nil {
		watcher.Close()
		return nil, err
	}
	return watcher, nil
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
