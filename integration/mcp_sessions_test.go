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

// mcpInit initializes a 2025-11-25 session with raw requests carrying hdr
// and returns its id.
func mcpInit(t *testing.T, g *gate, hdr map[string]string) string {
	t.Helper()
	r := g.mcpPost(hdr, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"integration","version":"1"}}}`)
	id := r.Header.Get("Mcp-Session-Id")
	if r.Status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", r.Status, r.Body)
	}
	if r := g.mcpPost(mcpOn(hdr, id), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.Status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", r.Status, r.Body)
	}
	return id
}

// mcpOn is hdr with session id's headers.
func mcpOn(hdr map[string]string, id string) map[string]string {
	out := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

// TestMCPInitializeWithoutDeleteNeverLocksOut: a client that initializes
// again and again without DELETE (the Inspector CLI, mcp-remote, most SDK
// users), well past the per-caller cap, gets a working session each time,
// through Caddy; each session it left behind past the cap is closed,
// least recently used first, with an audit record saying so, and answers
// 404 session_expired.
func TestMCPInitializeWithoutDeleteNeverLocksOut(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: "mcp {\n\t\t\tmax_sessions_per_caller 3\n\t\t}"})
	coder := map[string]string{"Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}
	var ids []string
	for i := range 12 {
		id := mcpInit(t, g, coder)
		if r := g.mcpPost(mcpOn(coder, id), mcpListBody); r.Status != http.StatusOK {
			t.Fatalf("run %d: tools/list on its new session: %d %s", i+1, r.Status, r.Body)
		}
		ids = append(ids, id)
	}
	r := g.mcpPost(mcpOn(coder, ids[0]), mcpListBody)
	if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "session_expired") {
		t.Errorf("the first session, nine initializes past the cap: %d %s", r.Status, r.Body)
	}
	evicted := waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["result"] == "mcp_session_closed" && l["mcp_session_id"] == ids[0]
	})
	if evicted["caller_id"] != "kunora-coding-agent" {
		t.Errorf("the eviction's audit record: %v", evicted)
	}
	for _, id := range ids[len(ids)-3:] {
		if r := g.mcpPost(mcpOn(coder, id), mcpListBody); r.Status != http.StatusOK {
			t.Errorf("one of the three newest sessions: %d %s", r.Status, r.Body)
		}
	}
}

// TestMCPSessionBoundToItsCredential: a session opened with an API key does
// not take the same agent's JWT, nor a JWT session the agent's key (403);
// once the key is revoked in the key file, the key's session ends whatever
// the client sends next, the agent's JWT included (404), and stays ended.
func TestMCPSessionBoundToItsCredential(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, rec, err := store.Create("kunora-coding-agent", "mcp-binding", 0)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]string{identity.HeaderAPIKey: key}
	byJWT := map[string]string{"Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}
	keySession, jwtSession := mcpInit(t, g, byKey), mcpInit(t, g, byJWT)
	for name, r := range map[string]response{
		"the key's session with the JWT": g.mcpPost(mcpOn(byJWT, keySession), mcpListBody),
		"the JWT's session with the key": g.mcpPost(mcpOn(byKey, jwtSession), mcpListBody),
	} {
		if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "session_forbidden") {
			t.Errorf("%s: %d %s, want 403 session_forbidden", name, r.Status, r.Body)
		}
	}
	if r := g.mcpPost(mcpOn(byKey, keySession), mcpListBody); r.Status != http.StatusOK {
		t.Fatalf("the key's session with its key: %d %s", r.Status, r.Body)
	}

	if err := store.Revoke(rec.Prefix); err != nil {
		t.Fatal(err)
	}
	// The gate reads the key file again within a few seconds; until then
	// the session is still the key's (403 to the JWT), never the JWT's.
	waitFor(t, "the revoked key's session to end", func() bool {
		r := g.mcpPost(mcpOn(byJWT, keySession), mcpListBody)
		if r.Status != http.StatusForbidden && (r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "session_expired")) {
			t.Fatalf("the revoked key's session with the agent's JWT: %d %s, want 403 then 404 session_expired", r.Status, r.Body)
		}
		return r.Status == http.StatusNotFound
	})
	if r := g.mcpPost(mcpOn(byJWT, keySession), mcpListBody); r.Status != http.StatusNotFound {
		t.Errorf("the ended session, again with the JWT: %d %s", r.Status, r.Body)
	}
	if r := g.mcpPost(mcpOn(byJWT, jwtSession), mcpListBody); r.Status != http.StatusOK {
		t.Errorf("the JWT's own session: %d %s", r.Status, r.Body)
	}
}

// TestMCPAnonymousBudgetsPerClientIP: behind a proxy on the same machine,
// anonymous readers are told apart by the address the proxy forwards only
// when the server's trusted_proxies names it. With it, two X-Forwarded-For
// addresses get two budgets: each keeps its MCP session at a cap of one
// and each gets its own anonymous search limit. Without it, both are the
// proxy's: the second reader's session evicts the first's, and the second
// reader finds the limit spent.
func TestMCPAnonymousBudgetsPerClientIP(t *testing.T) {
	for _, tc := range []struct {
		name    string
		global  string
		budgets int
	}{
		{"trusted_proxies static 127.0.0.1", "servers {\n\t\ttrusted_proxies static 127.0.0.1\n\t}", 2},
		{"without trusted_proxies", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startGate(t, gateOptions{policyDir: limitedPolicy(t, 2), globalExtra: tc.global,
				extraOptions: "mcp {\n\t\t\tmax_sessions_per_caller 1\n\t\t}"})
			a, b := map[string]string{"X-Forwarded-For": "198.51.100.1"}, map[string]string{"X-Forwarded-For": "198.51.100.2"}
			first := mcpInit(t, g, a)
			mcpInit(t, g, b)
			if kept := g.mcpPost(mcpOn(a, first), mcpListBody).Status == http.StatusOK; kept != (tc.budgets == 2) {
				t.Errorf("the first reader's MCP session kept: %v, want %v", kept, tc.budgets == 2)
			}
			body := `{"question":"agent memory"}`
			for i := range 2 {
				if r := g.post("/answer/search", a, body); r.Status != http.StatusOK {
					t.Fatalf("reader 1 search %d: %d %s", i+1, r.Status, r.Body)
				}
			}
			r := g.post("/answer/search", b, body)
			if own := r.Status == http.StatusOK; own != (tc.budgets == 2) {
				t.Errorf("reader 2's search after reader 1 spent 2: %d %s (own budget wanted: %v)", r.Status, r.Body, tc.budgets == 2)
			}
		})
	}
}
