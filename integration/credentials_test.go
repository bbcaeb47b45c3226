package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// The rules of docs/security.md "Authentication" on every door a credential opens:
// the agent tool routes, the people's routes (where an agent credential
// applies too) and MCP.

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"credentials-test","version":"1"}}}`

// credentialDoor is one route a credential is presented to, with a body
// the route answers 200 to when the credential is good.
type credentialDoor struct {
	name, path, body string
}

var credentialDoors = []credentialDoor{
	{"tool route", "/agent/tools/search", `{"question":"agent memory"}`},
	{"people route", "/answer/search", `{"question":"agent memory"}`},
	{"mcp", "/mcp", mcpInitialize},
}

// send posts door's body with headers, each value its own header line
// (so a name may repeat).
func (g *gate) send(door credentialDoor, headers [][2]string) response {
	g.t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.url+door.path, strings.NewReader(door.body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if door.path == "/mcp" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for _, h := range headers {
		req.Header.Add(h[0], h[1])
	}
	return g.do(req)
}

// refusal reads a 401's code and message on either door: the protocol's
// envelope on the HTTP routes, a JSON-RPC error (data.code) on MCP.
func refusal(t *testing.T, door credentialDoor, r response) (code, message string) {
	t.Helper()
	var body struct {
		Error struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("%s: the refusal is not JSON (%d): %s", door.name, r.Status, r.Body)
	}
	if door.path == "/mcp" {
		return body.Error.Data.Code, body.Error.Message
	}
	_ = json.Unmarshal(body.Error.Code, &code)
	return code, body.Error.Message
}

func createKey(t *testing.T, g *gate, agent string) string {
	t.Helper()
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.Create(agent, "credentials-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestOneCredentialPerCall: a request carrying two credentials is 401
// naming the rule on every door, whatever each credential is worth: the
// API key no longer decides while the token beside it goes unchecked. An
// empty credential header is a refused credential, never anonymous.
func TestOneCredentialPerCall(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	token := agentToken(t, "kunora-coding-agent")
	other := agentToken(t, "docs-maintainer-agent")
	key := createKey(t, g, "kunora-coding-agent")
	forged := token[:strings.LastIndexByte(token, '.')+1] + "c2lnbmF0dXJlLW9mLW5vYm9keQ"
	const rule = "one credential per call"
	cases := map[string]struct {
		headers [][2]string
		message string
	}{
		"token and key":            {[][2]string{{"Authorization", "Bearer " + token}, {identity.HeaderAPIKey, key}}, rule},
		"invalid token, valid key": {[][2]string{{"Authorization", "Bearer " + forged}, {identity.HeaderAPIKey, key}}, rule},
		"valid token, invalid key": {[][2]string{{"Authorization", "Bearer " + token}, {identity.HeaderAPIKey, key + "x"}}, rule},
		"two tokens":               {[][2]string{{"Authorization", "Bearer " + token}, {"Authorization", "Bearer " + other}}, rule},
		"two keys":                 {[][2]string{{identity.HeaderAPIKey, key}, {identity.HeaderAPIKey, key}}, rule},
		"empty key beside a token": {[][2]string{{"Authorization", "Bearer " + token}, {identity.HeaderAPIKey, ""}}, rule},
		"empty authorization":      {[][2]string{{"Authorization", ""}}, "credential header is empty"},
		"empty key":                {[][2]string{{identity.HeaderAPIKey, ""}}, "credential header is empty"},
	}
	for _, door := range credentialDoors {
		for name, c := range cases {
			r := g.send(door, c.headers)
			code, msg := refusal(t, door, r)
			if r.Status != http.StatusUnauthorized || code != "unauthorized" || !strings.Contains(msg, c.message) {
				t.Errorf("%s, %s: %d %s %q, want 401 unauthorized %q", door.name, name, r.Status, code, msg, c.message)
			}
			if strings.Contains(string(r.Body), key) || strings.Contains(string(r.Body), token) {
				t.Errorf("%s, %s: the refusal echoes a credential", door.name, name)
			}
		}
		// each credential alone opens the door
		for name, h := range map[string][2]string{"token": {"Authorization", "Bearer " + token}, "key": {identity.HeaderAPIKey, key}} {
			if r := g.send(door, [][2]string{h}); r.Status != http.StatusOK {
				t.Errorf("%s, the %s alone: %d %s", door.name, name, r.Status, r.Body)
			}
		}
	}
}

// respellSignature rewrites a token's signature with f.
func respellSignature(token string, f func(string) string) string {
	i := strings.LastIndexByte(token, '.')
	return token[:i+1] + f(token[i+1:])
}

// TestJWTsAreDecodedStrictly: a token has one spelling, base64url without
// padding with its spare bits zero. The same signature bytes written with a
// spare bit set, in standard base64 or with padding are refused on every
// door (the spare bit passed before: one token had several spellings).
func TestJWTsAreDecodedStrictly(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	// a token whose signature holds - or _, so standard base64 differs
	var token string
	for ttl := time.Hour; ; ttl += time.Second {
		token = mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{audience}, Subject: "kunora-coding-agent", TTL: ttl})
		if sig := token[strings.LastIndexByte(token, '.')+1:]; strings.ContainsAny(sig, "-_") {
			break
		}
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	spellings := map[string]string{
		// HS256: 32 bytes in 43 characters, the last with two spare bits
		"a spare bit set": respellSignature(token, func(s string) string {
			return s[:len(s)-1] + string(alphabet[strings.IndexByte(alphabet, s[len(s)-1])^1])
		}),
		"standard base64": respellSignature(token, strings.NewReplacer("-", "+", "_", "/").Replace),
		"padding":         respellSignature(token, func(s string) string { return s + "=" }),
	}
	for _, door := range credentialDoors {
		if r := g.send(door, [][2]string{{"Authorization", "Bearer " + token}}); r.Status != http.StatusOK {
			t.Fatalf("%s: the token as minted: %d %s", door.name, r.Status, r.Body)
		}
		for name, spelled := range spellings {
			r := g.send(door, [][2]string{{"Authorization", "Bearer " + spelled}})
			code, msg := refusal(t, door, r)
			if r.Status != http.StatusUnauthorized || code != "unauthorized" || msg != "token is malformed" {
				t.Errorf("%s, signature with %s: %d %s %q, want 401 unauthorized token is malformed", door.name, name, r.Status, code, msg)
			}
		}
	}
}

// mcpHead is the header block of a POST /mcp announcing a 1000-byte body.
func mcpHead(g *gate, headers ...string) string {
	host := strings.TrimPrefix(g.url, "http://")
	return strings.Join(append([]string{"POST /mcp HTTP/1.1", "Host: " + host, "Content-Type: application/json",
		"Accept: application/json, text/event-stream", "Content-Length: 1000"}, headers...), "\r\n")
}

// TestMCPCredentialBeforeTheBody: /mcp answers a refused credential before
// reading the body, as the tool routes do: Expect: 100-continue gets 401
// and never 100 Continue, and a partial body does not hold the answer back
// (firstAnswer never completes the body; before, the gate waited for it).
func TestMCPCredentialBeforeTheBody(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	tok := agentToken(t, "kunora-coding-agent")
	ghost := agentToken(t, "ghost-agent")
	refused := map[string]string{
		"bad token, 100-continue":     mcpHead(g, "Expect: 100-continue", "Authorization: Bearer not.a.token"),
		"bad API key, 100-continue":   mcpHead(g, "Expect: 100-continue", "X-Agent-Api-Key: wg_nope"),
		"two credentials, 100-cont.":  mcpHead(g, "Expect: 100-continue", "Authorization: Bearer "+tok, "X-Agent-Api-Key: wg_nope"),
		"unknown agent, 100-continue": mcpHead(g, "Expect: 100-continue", "Authorization: Bearer "+ghost),
		"bad token, body cut short":   mcpHead(g, "Authorization: Bearer not.a.token"),
	}
	for name, head := range refused {
		resp := firstAnswer(t, g, head, `{"jsonrpc":"2.0","id":1,"met`)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: first answer %d, want 401", name, resp.StatusCode)
		}
		if resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without the challenge", name)
		}
	}
	// A good credential (or none, in public-read: an anonymous reader)
	// needs the body, so the gate asks for it.
	welcome := map[string]string{
		"agent token": mcpHead(g, "Expect: 100-continue", "Authorization: Bearer "+tok),
		"anonymous":   mcpHead(g, "Expect: 100-continue"),
	}
	for name, head := range welcome {
		if resp := firstAnswer(t, g, head, ""); resp.StatusCode != http.StatusContinue {
			t.Errorf("%s: first answer %d, want 100 Continue", name, resp.StatusCode)
		}
	}
}

// TestMCPUnknownAgentIsRefusedAtInitialize: a validly signed token (or a
// key) for an agent the policy data does not know is 401 at initialize,
// as on the tool routes; it was 200, then -32603 at tools/list.
func TestMCPUnknownAgentIsRefusedAtInitialize(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: mcpBlock})
	ghostKey := createKey(t, g, "ghost-agent")
	mcp := credentialDoors[2]
	for name, h := range map[string][2]string{
		"token": {"Authorization", "Bearer " + agentToken(t, "ghost-agent")},
		"key":   {identity.HeaderAPIKey, ghostKey},
	} {
		if r := g.send(credentialDoors[0], [][2]string{h}); r.Status != http.StatusUnauthorized {
			t.Fatalf("tool route, ghost %s: %d %s", name, r.Status, r.Body)
		}
		r := g.send(mcp, [][2]string{h})
		code, msg := refusal(t, mcp, r)
		if r.Status != http.StatusUnauthorized || code != "unauthorized" || msg != "unknown agent" {
			t.Errorf("mcp initialize, ghost %s: %d %s %q, want 401 unauthorized unknown agent", name, r.Status, code, msg)
		}
	}
	if _, err := mcpDial(g, mcpBearer{"Authorization", "Bearer " + agentToken(t, "ghost-agent")}, "2025-06-18", nil); err == nil {
		t.Error("the SDK client connected as an unknown agent")
	}
	rec := waitAuditRecord(t, logFile, func(m map[string]any) bool {
		return m["endpoint"] == "/mcp" && m["caller_id"] == "ghost-agent"
	})
	if fmt.Sprint(rec["status"]) != "401" || rec["result"] != "unauthorized" {
		t.Errorf("audit record of the refusal: %v", rec)
	}
}

// TestMCPAgentDisabledByAReloadIsRefused: the gate remembers which agents
// the policy knows only for the policy revision that said so. Once a data
// edit disables an agent, its next MCP request is 401 unknown agent, as its
// next tool-route call is.
func TestMCPAgentDisabledByAReloadIsRefused(t *testing.T) {
	dir := copyDir(t, "../rego")
	g := startGate(t, gateOptions{policyDir: dir, extraOptions: mcpBlock})
	h := [][2]string{{"Authorization", "Bearer " + agentToken(t, "kunora-coding-agent")}}
	mcp := credentialDoors[2]
	if r := g.send(mcp, h); r.Status != http.StatusOK {
		t.Fatalf("before the edit: %d %s", r.Status, r.Body)
	}
	editJSON(t, filepath.Join(dir, "data.json"), func(v any) any {
		v.(map[string]any)["agents"].(map[string]any)["kunora-coding-agent"].(map[string]any)["disabled"] = true
		return v
	})
	// A reload compiles and tests the policy: on a loaded machine under
	// -race that takes longer than waitFor's 10 s.
	for deadline := time.Now().Add(time.Minute); g.send(credentialDoors[0], h).Status != http.StatusUnauthorized; {
		if time.Now().After(deadline) {
			t.Fatal("the tool route never refused the disabled agent")
		}
		time.Sleep(200 * time.Millisecond)
	}
	r := g.send(mcp, h)
	code, msg := refusal(t, mcp, r)
	if r.Status != http.StatusUnauthorized || code != "unauthorized" || msg != "unknown agent" {
		t.Errorf("mcp initialize after the agent was disabled: %d %s %q", r.Status, code, msg)
	}
}
