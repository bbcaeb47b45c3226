package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/samplewiki"
)

// browserTestDir is the widget's browser test (package.json and its lockfile
// pin puppeteer-core, @meilisearch/instant-meilisearch and its meilisearch).
const browserTestDir = "../tests/browser"

// browserTools finds node, the installed puppeteer-core and Chromium, or
// skips (fails under WIKIGATE_REQUIRE_NODE=1) naming what to install.
func browserTools(t *testing.T) (node, chromium string) {
	t.Helper()
	tool := nodeTool{dir: browserTestDir, pkg: "puppeteer-core",
		install: "install the Debian packages nodejs, npm and chromium, and run `npm ci` in tests/browser"}
	node = tool.find(t)
	for _, pkg := range []string{"@meilisearch/instant-meilisearch", "axe-core"} {
		tool.pkg = pkg
		tool.find(t)
	}
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

// wikiPagesFile writes the sample wiki's pages as the development backends
// serve them (url, title, project, version, status): the browser tests'
// oracle for where a citation or a hit points.
func wikiPagesFile(t *testing.T) string {
	t.Helper()
	c, err := samplewiki.Load()
	if err != nil {
		t.Fatal(err)
	}
	var pages []map[string]string
	for _, p := range c.Pages {
		pages = append(pages, map[string]string{"url": p.URL, "title": p.Title, "project": p.Project, "version": p.Version, "status": p.Status})
	}
	raw, err := json.Marshal(pages)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pages.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// The docs site in headless Chromium, on a gate configured like the repo's
// Caddyfile (widget { demo on }) plus a cors block for a docs site on
// another origin. widget.test.mjs: the <wikigate-ask> widget on /demo/ —
// a search lists approved pages; an answer streams in several steps, then
// shows numbered citations linking to approved pages, its confidence, and
// hands focus back for a follow-up, which is a turn of the same session;
// an unanswerable question offers "Report this gap", whose report the
// gate records under the no-answer's dedupeKey; a screenshot of the
// answered state is saved. docs-site.test.mjs: a page of the docs origin
// searches through @meilisearch/instant-meilisearch, unchanged and without
// a key, and sees only public approved pages, even when its facet filter
// asks for working ones; the widget it embeds from the gate streams an
// answer across origins, its citations linking to approved pages.
// csp.test.mjs: a docs page sending the Content-Security-Policy docs/docs-sites.md
// recommends (scripts from and connections to the gate, no
// 'unsafe-inline') searches and streams an answer with the widget, styled,
// and no violation is reported. widget-a11y.test.mjs: every control is
// reached with Tab in order, named and ringed; axe-core finds no serious or
// critical violation in the widget's shadow root (empty, hits, an answer, a
// no-answer), light or dark; the widget turns dark with
// prefers-color-scheme; each streamed sentence is announced in a live
// region and the result is not read twice. widget-i18n.test.mjs: the UI is
// Chinese for the element's, the page's or the browser's zh-*, and the
// protocol's example question is answered in it.
func TestWidgetInBrowser(t *testing.T) {
	node, chromium := browserTools(t)
	docsPort := freePort(t)
	cors := fmt.Sprintf("cors {\n\t\t\tallowed_origins http://127.0.0.1:%d\n\t\t}", docsPort)
	g := startGate(t, gateOptions{extraOptions: "widget {\n\t\t\tdemo on\n\t\t}\n\t\t" + cors})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-concurrency=1", "--test-reporter=spec",
		"widget.test.mjs", "docs-site.test.mjs", "csp.test.mjs", "widget-a11y.test.mjs", "widget-i18n.test.mjs")
	cmd.Dir = browserTestDir
	cmd.Env = append(os.Environ(), "WIKIGATE_URL="+g.url, "CHROMIUM_PATH="+chromium,
		"WIKIGATE_ARTIFACTS="+artifactsDir(t), "WIKIGATE_PAGES="+wikiPagesFile(t),
		fmt.Sprintf("WIKIGATE_DOCS_PORT=%d", docsPort), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test %s (in tests/browser):\n%s", strings.Join(cmd.Args[4:], " "), out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}
