package integration

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// meiliJSTestDir is the meilisearch JS client test (package.json and its
// lockfile pin the meilisearch npm package).
const meiliJSTestDir = "../tests/meili-js"

// nodeForMeiliJS finds node and the installed client, or skips (fails under
// WIKIGATE_REQUIRE_NODE=1) naming what to install.
func nodeForMeiliJS(t *testing.T) string {
	t.Helper()
	return nodeTool{dir: meiliJSTestDir, pkg: "meilisearch",
		install: "install Node.js 20.19 or newer (Debian package nodejs, with npm) and run `npm ci` in tests/meili-js"}.find(t)
}

// The official meilisearch JS client, unchanged and without a key, against
// the gate's Meilisearch-compatible routes on a gate configured like the
// repo's Caddyfile: index.search and multiSearch return only public
// approved hits, a widening filter finds nothing, another index and an
// unsupported parameter are MeilisearchApiErrors with Meilisearch's codes.
// The assertions live in tests/meili-js/meili.test.mjs (node:test).
func TestPeopleMeiliJSClient(t *testing.T) {
	node := nodeForMeiliJS(t)
	g := startGate(t, gateOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "meili.test.mjs")
	cmd.Dir = meiliJSTestDir
	cmd.Env = append(os.Environ(), "WIKIGATE_MEILI_HOST="+g.url+"/answer/meilisearch", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test meili.test.mjs (in tests/meili-js):\n%s", out)
	if err != nil {
		t.Fatalf("the meilisearch JS client test failed: %v", err)
	}
}
