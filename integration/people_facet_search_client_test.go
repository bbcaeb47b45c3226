package integration

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// browserJSTestDir holds instant-meilisearch (tests/browser's lockfile pins it).
const browserJSTestDir = "../tests/browser"

// The facet search through the clients a docs site uses, unchanged and
// without a key: the official meilisearch client's searchForFacetValues
// (tests/meili-js/facet-search.test.mjs) and instant-meilisearch's, which
// InstantSearch calls for a searchable refinement list
// (tests/browser/facet-search.test.mjs, Node only).
func TestPeopleMeiliFacetSearchClients(t *testing.T) {
	meiliNode := nodeForMeiliJS(t)
	instantNode := nodeTool{dir: browserJSTestDir, pkg: "@meilisearch/instant-meilisearch",
		install: "install Node.js 20.19 or newer (Debian package nodejs, with npm) and run `npm ci` in tests/browser"}.find(t)
	g := startGate(t, gateOptions{})
	for _, run := range []struct{ node, dir string }{{meiliNode, meiliJSTestDir}, {instantNode, browserJSTestDir}} {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, run.node, "--test", "--test-reporter=spec", "facet-search.test.mjs")
		cmd.Dir = run.dir
		cmd.Env = append(os.Environ(), "WIKIGATE_MEILI_HOST="+g.url+"/answer/meilisearch", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		cancel()
		t.Logf("node --test facet-search.test.mjs (in %s):\n%s", run.dir, out)
		if err != nil {
			t.Fatalf("the facet search test in %s failed: %v", run.dir, err)
		}
	}
}
