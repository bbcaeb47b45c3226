package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireNode reports whether a missing Node.js, browser or node_modules
// fails the test instead of skipping it (.ci/run sets it, after npm ci).
func requireNode() bool { return os.Getenv("WIKIGATE_REQUIRE_NODE") == "1" }

// nodeTool is what one Node-driven test needs: a test folder whose
// node_modules must hold pkg, and what to tell someone who lacks them.
type nodeTool struct {
	dir     string // e.g. ../tests/mcp-ts
	pkg     string // a path under node_modules whose package.json must exist
	install string // the install advice, naming packages and the folder
}

// find returns the node binary, or skips (fails under
// WIKIGATE_REQUIRE_NODE=1) naming what to install.
func (n nodeTool) find(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		n.missing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(n.dir, "node_modules", n.pkg, "package.json")); err != nil {
		n.missing(t, filepath.Base(n.dir)+"/node_modules has no "+n.pkg)
	}
	return node
}

// lookPath finds another binary the test needs (chromium), or skips (fails
// under WIKIGATE_REQUIRE_NODE=1).
func (n nodeTool) lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		n.missing(t, name+" is not on PATH")
	}
	return p
}

func (n nodeTool) missing(t *testing.T, what string) {
	t.Helper()
	msg := what + ": " + n.install
	if requireNode() {
		t.Fatal(msg + " (WIKIGATE_REQUIRE_NODE=1)")
	}
	t.Skip(msg)
}
