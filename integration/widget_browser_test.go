package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// browserTestDir is the widget's browser test (package.json and its lockfile
// pin puppeteer-core).
const browserTestDir = "../tests/browser"

// browserTools finds node, the installed puppeteer-core and Chromium, or
// skips (fails under WIKIGATE_REQUIRE_NODE=1) naming what to install.
func browserTools(t *testing.T) (node, chromium string) {
	t.Helper()
	tool := nodeTool{dir: browserTestDir, pkg: "puppeteer-core",
		install: "install the Debian packages nodejs, npm and chromium, and run `npm ci` in tests/browser"}
	node = tool.find(t)
	return node, tool.lookPath(t, "chromium")
}

// artifactsDir is where the screenshot goes: WIKIGATE_TEST_ARTIFACTS (CI
// keeps it), else a directory that outlives the test, named in the log.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WIKIGATE_TEST_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "wikigate-browser-"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("browser test artifacts: %s", dir)
	return dir
}

// The <wikigate-ask> widget on /demo/ in headless Chromium, on a gate
// configured like the repo's Caddyfile (widget { demo on }): a search lists
// approved pages; an answer streams in several steps, then shows numbered
// citations linking to approved pages, its confidence, and hands focus back
// for a follow-up, which is a turn of the same session; an unanswerable
// question offers "Report this gap", whose report the gate records under
// the no-answer's dedupeKey. A screenshot of the answered state is saved.
// The assertions live in tests/browser/widget.test.mjs (node:test).
func TestWidgetInBrowser(t *testing.T) {
	node, chromium := browserTools(t)
	g := startGate(t, gateOptions{extraOptions: "widget {\n\t\t\tdemo on\n\t\t}"})
	wiki, err := filepath.Abs("../samplewiki/pages")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "widget.test.mjs")
	cmd.Dir = browserTestDir
	cmd.Env = append(os.Environ(), "WIKIGATE_URL="+g.url, "CHROMIUM_PATH="+chromium,
		"WIKIGATE_ARTIFACTS="+artifactsDir(t), "WIKIGATE_SAMPLEWIKI="+wiki, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test widget.test.mjs (in tests/browser):\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}
