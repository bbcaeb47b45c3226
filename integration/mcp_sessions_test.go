package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/identity"
)

const mcpListBody = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`

// TestMCPSessionDiesWithItsAPIKey: a 2025-11-25 session opened with an API
// key, through Caddy, is closed when the key is revoked in the key file
// (the gate re-checks open sessions when the file changes), and the next
// request on its Mcp-Session-Id is refused.
func TestMCPSessionDiesWithItsAPIKey(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: mcpBlock})
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, rec, err := store.Create("kunora-coding-agent", "mcp-session", 0)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcpDial(g, mcpBearer{identity.HeaderAPIKey, key}, "2025-11-25", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := mcpToolNames(t, cs); len(got) != 5 {
		t.Fatalf("kunora-coding-agent with a key lists %v", got)
	}
	session := map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25", identity.HeaderAPIKey: key}
	if r := g.mcpPost(session, mcpListBody); r.Status != http.StatusOK {
		t.Fatalf("the session before the revocation: %d %s", r.Status, r.Body)
	}

	if err := store.Revoke(rec.Prefix); err != nil {
		t.Fatal(err)
	}
	closed := waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["result"] == "mcp_session_closed" && l["mcp_session_id"] == cs.ID()
	})
	if closed["caller_id"] != "kunora-coding-agent" || closed["key_id"] != rec.Prefix {
		t.Errorf("closing record: %v", closed)
	}
	if r := g.mcpPost(session, mcpListBody); r.Status != http.StatusUnauthorized {
		t.Errorf("the session after the revocation: %d %s", r.Status, r.Body)
	}
	if _, err := cs.ListTools(t.Context(), nil); err == nil {
		t.Error("the SDK client still lists tools on a session whose key was revoked")
	}
}

// TestMCPSessionDiesWithItsToken: a session opened with a short-lived
// agent JWT is closed when the token expires, through Caddy: the next
// request on its Mcp-Session-Id is refused even with a fresh token of the
// same agent (the session is gone, it must initialize again).
func TestMCPSessionDiesWithItsToken(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: mcpBlock})
	short := mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{audience},
		Subject: "kunora-coding-agent", TTL: 2 * time.Second})
	cs := mcpConnect(t, g, short, "2025-11-25", nil)
	if got := mcpToolNames(t, cs); len(got) != 5 {
		t.Fatalf("lists %v", got)
	}
	waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["result"] == "mcp_session_closed" && l["mcp_session_id"] == cs.ID()
	})
	fresh := map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25",
		"Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}
	r := g.mcpPost(fresh, mcpListBody)
	if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "session_expired") {
		t.Errorf("the expired token's session, with a fresh token: %d %s", r.Status, r.Body)
	}
}

// TestMCPPolicyReloadSendsListChanged: an open session of ops-readonly-agent
// listening on its server-to-client stream hears
// notifications/tools/list_changed when a policy reload takes get_page from
// it, and lists only search afterwards; a session whose tools did not
// change (kunora-coding-agent's) hears nothing.
func TestMCPPolicyReloadSendsListChanged(t *testing.T) {
	src, _ := filepath.Abs("../rego")
	dir := copyDir(t, src)
	g := startGate(t, gateOptions{extraOptions: mcpBlock, policyDir: dir})
	var opsHeard, coderHeard atomic.Int64
	listen := func(n *atomic.Int64) *mcpsdk.ClientOptions {
		return &mcpsdk.ClientOptions{ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { n.Add(1) }}
	}
	ops := mcpConnect(t, g, agentToken(t, "ops-readonly-agent"), "2025-11-25", listen(&opsHeard))
	coder := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "2025-06-18", listen(&coderHeard))
	if got := mcpToolNames(t, ops); !slices.Equal(got, []string{"search", "get_page"}) {
		t.Fatalf("ops-readonly-agent lists %v", got)
	}
	mcpToolNames(t, coder)

	data := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	old := `"tools": ["search", "get_page"],`
	if !strings.Contains(string(raw), old) {
		t.Fatalf("data.json no longer grants ops-readonly-agent %s; update this test", old)
	}
	writeFile(t, data, strings.Replace(string(raw), old, `"tools": ["search"],`, 1))

	waitFor(t, "notifications/tools/list_changed on the ops session", func() bool { return opsHeard.Load() > 0 })
	if got := mcpToolNames(t, ops); !slices.Equal(got, []string{"search"}) {
		t.Errorf("after the reload ops-readonly-agent lists %v, want [search]", got)
	}
	time.Sleep(500 * time.Millisecond) // the coder's notification, if one were wrongly sent, has had time to arrive
	if n := coderHeard.Load(); n != 0 {
		t.Errorf("kunora-coding-agent's tools did not change, yet it heard list_changed %d times", n)
	}
}
