package integration

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// tsTestDir is the TypeScript SDK client test (package.json and its
// lockfile pin @modelcontextprotocol/sdk).
const tsTestDir = "../tests/mcp-ts"

// nodeForTS finds node and the installed SDK, or skips (fails under
// WIKIGATE_REQUIRE_NODE=1) naming what to install.
func nodeForTS(t *testing.T) string {
	t.Helper()
	return nodeTool{dir: tsTestDir, pkg: "@modelcontextprotocol/sdk",
		install: "install Node.js 20 or newer (Debian package nodejs, with npm) and run `npm ci` in tests/mcp-ts"}.find(t)
}

// The official TypeScript SDK client against /mcp on a gate configured like
// the repo's Caddyfile (public-read, the shipped policy, the development
// backends with the sample wiki): initialize, tools/list per agent, ask
// with its structured AnswerResult and citations, a forbidden_scope and a
// forbidden_tool tool error, an anonymous public reader, a refused token.
// The assertions live in tests/mcp-ts/mcp.test.mjs (node:test).
func TestMCPTypeScriptSDKClient(t *testing.T) {
	node := nodeForTS(t)
	g := startGate(t, gateOptions{extraOptions: "mcp {\n\t\t\tenable on\n\t\t}"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "mcp.test.mjs")
	cmd.Dir = tsTestDir
	cmd.Env = append(os.Environ(),
		"WIKIGATE_MCP_URL="+g.url+"/mcp",
		"WIKIGATE_MCP_TOKEN="+agentToken(t, "kunora-coding-agent"),
		"WIKIGATE_MCP_TOKEN_OPS="+agentToken(t, "ops-readonly-agent"),
		"NO_COLOR=1",
	)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test mcp.test.mjs (in tests/mcp-ts):\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript SDK client test failed: %v", err)
	}
}
