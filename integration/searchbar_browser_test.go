package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Docs search bars on a docs site of another origin, in headless Chromium
// (tests/browser/searchbar.test.mjs, each client pinned by the folder's
// lockfile): meilisearch-docsearch, which reads the docs-scraper record
// schema, lists sections of public approved pages from the gate's
// wiki_pages-docs view, titled "page | heading", highlighted, linked with
// the section's anchor, grouped by project, and shows no working draft; the
// newest meilisearch client searches the view with showRankingScore,
// matchingStrategy, rankingScoreThreshold and an empty sort, runs a
// multi-search over both uids, and gets Meilisearch's errors
// (MeilisearchApiError invalid_search_sort, …) for what the gate refuses;
// instant-meilisearch searches the view with meiliSearchParams, and a
// facet filter asking for working pages finds nothing. A screenshot of the
// search bar's hits is saved.
func TestDocsSearchBarsInBrowser(t *testing.T) {
	node, chromium := browserTools(t)
	tool := nodeTool{dir: browserTestDir, install: "run `npm ci` in tests/browser"}
	for _, pkg := range []string{"meilisearch-docsearch", "meilisearch-latest"} {
		tool.pkg = pkg
		tool.find(t)
	}
	docsPort := freePort(t)
	cors := fmt.Sprintf("cors {\n\t\t\tallowed_origins http://127.0.0.1:%d\n\t\t}", docsPort)
	g := startGate(t, gateOptions{extraOptions: cors})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-concurrency=1", "--test-reporter=spec", "searchbar.test.mjs")
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
