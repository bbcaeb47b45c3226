package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/wikigate/wikigate/identity"
)

// mcpBlock enables the MCP endpoint as the repo's Caddyfile does.
const mcpBlock = "mcp {\n\t\t\tallowed_origins http://localhost:* http://127.0.0.1:*\n\t\t}"

// mcpBearer adds a credential to every request of the SDK client.
type mcpBearer struct {
	header, value string
}

func (b mcpBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.value != "" {
		r.Header.Set(b.header, b.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect opens an SDK client on the gate's /mcp as token ("" anonymous)
// speaking revision ("" the SDK's newest, the stateless 2026-07-28).
func mcpConnect(t *testing.T, g *gate, token, revision string, opts *mcpsdk.ClientOptions) *mcpsdk.ClientSession {
	t.Helper()
	cs, err := mcpDial(g, mcpBearer{"Authorization", bearerValue(token)}, revision, opts)
	if err != nil {
		t.Fatalf("connect (%s): %v", revision, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func bearerValue(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

func mcpDial(g *gate, cred mcpBearer, revision string, opts *mcpsdk.ClientOptions) (*mcpsdk.ClientSession, error) {
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "integration-agent", Version: "1"}, opts)
	tr := &mcpsdk.StreamableClientTransport{
		Endpoint: g.url + "/mcp", HTTPClient: &http.Client{Transport: cred, Timeout: 20 * time.Second},
		// The server-to-client stream only when the test listens on it
		// (tools/list_changed), so the others do not hold a GET open.
		MaxRetries: -1, DisableStandaloneSSE: opts == nil || opts.ToolListChangedHandler == nil,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, &mcpsdk.ClientSessionOptions{ProtocolVersion: revision})
}

func mcpToolNames(t *testing.T, cs *mcpsdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func mcpCall(t *testing.T, cs *mcpsdk.ClientSession, tool string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return res
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *mcpsdk.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// toolErrorCode is the protocol code of an isError result ("" when none).
func toolErrorCode(t *testing.T, res *mcpsdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		return ""
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	structured(t, res, &e)
	return e.Error.Code
}

// mcpPost sends one raw message as a client would.
func (g *gate) mcpPost(hdr map[string]string, body string) response {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return g.do(req)
}

// TestMCPAgentsThroughCaddy drives the gate with the Go SDK's own client:
// each agent lists exactly its granted tools, a search returns in-scope hits
// as structuredContent, a call outside the grant is a forbidden_scope tool
// error with its audit record, and a session is refused to another agent.
func TestMCPAgentsThroughCaddy(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{extraOptions: mcpBlock})
	coder := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "2025-06-18", nil)
	if coder.ID() == "" {
		t.Fatal("initialize on 2025-06-18 opened no session")
	}
	if got, want := mcpToolNames(t, coder), []string{"search", "ask", "get_page", "get_context", "create_feedback"}; !slices.Equal(got, want) {
		t.Errorf("kunora-coding-agent lists %v, want %v", got, want)
	}
	ops := mcpConnect(t, g, agentToken(t, "ops-readonly-agent"), "", nil)
	if got, want := mcpToolNames(t, ops), []string{"search", "get_page"}; !slices.Equal(got, want) {
		t.Errorf("ops-readonly-agent lists %v, want %v", got, want)
	}

	res := mcpCall(t, coder, "search", map[string]any{"question": "agent memory", "limit": 5})
	var found struct {
		Hits []struct {
			Path, SourceProject string
		} `json:"hits"`
		Audit struct{ RequestID string } `json:"audit"`
	}
	structured(t, res, &found)
	if res.IsError || len(found.Hits) == 0 {
		t.Fatalf("search: isError %v, %d hits", res.IsError, len(found.Hits))
	}
	for _, h := range found.Hits {
		if !strings.HasPrefix(h.Path, "publish/system/components/kunora-kgent/") || h.SourceProject != "kunora-kgent" {
			t.Errorf("hit outside the grant: %+v", h)
		}
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == found.Audit.RequestID })
	if rec["endpoint"] != "/mcp" || rec["tool"] != "search" || rec["result"] != "ok" || rec["mcp_session_id"] != coder.ID() || rec["jsonrpc_id"] == nil {
		t.Errorf("search audit record: %v", rec)
	}

	res = mcpCall(t, coder, "search", map[string]any{"question": "agent memory", "scope": map[string]any{"projects": []string{"kunora-gateway"}}})
	if code := toolErrorCode(t, res); code != "forbidden_scope" {
		t.Fatalf("outside the grant: isError %v code %q", res.IsError, code)
	}
	rec = waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["endpoint"] == "/mcp" && l["result"] == "forbidden_scope" && l["mcp_session_id"] == coder.ID()
	})
	if rec["tool"] != "search" || rec["caller_id"] != "kunora-coding-agent" || rec["status"] != float64(403) {
		t.Errorf("denied call's audit record: %v", rec)
	}

	hdr := map[string]string{"Mcp-Session-Id": coder.ID(), "Mcp-Protocol-Version": "2025-06-18",
		"Authorization": "Bearer " + agentToken(t, "ops-readonly-agent")}
	r := g.mcpPost(hdr, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"}}}`)
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "session_forbidden") {
		t.Fatalf("session reused by another agent: %d %s", r.Status, r.Body)
	}
	waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["result"] == "mcp_session_refused" && l["caller_id"] == "ops-readonly-agent" && l["mcp_session_id"] == coder.ID()
	})
	waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["result"] == "mcp_session_opened" && l["caller_id"] == "kunora-coding-agent" && l["mcp_session_id"] == coder.ID()
	})
}

// TestMCPPublicReader: without a credential in public-read, an MCP client
// is a public reader: it gets what the policy grants people (ask and
// search over the public default scope) and nothing else.
func TestMCPPublicReader(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	anon := mcpConnect(t, g, "", "", nil)
	if got, want := mcpToolNames(t, anon), []string{"search", "ask"}; !slices.Equal(got, want) {
		t.Errorf("public reader lists %v, want %v", got, want)
	}
	res := mcpCall(t, anon, "search", map[string]any{"question": "agent memory"})
	var found struct {
		Hits []struct{ Path, Version string } `json:"hits"`
	}
	structured(t, res, &found)
	if res.IsError || len(found.Hits) == 0 {
		t.Fatalf("public search: isError %v, %d hits", res.IsError, len(found.Hits))
	}
	for _, h := range found.Hits {
		if !strings.HasPrefix(h.Path, "publish/") || h.Version != "main" {
			t.Errorf("hit outside the public default scope: %+v", h)
		}
	}
	if code := toolErrorCode(t, mcpCall(t, anon, "get_page", map[string]any{"path": "publish/operations/index.md"})); code != "forbidden_tool" {
		t.Errorf("public reader's get_page: %q", code)
	}
}

// TestMCPProgressDuringAsk: a client that sends a progress token hears the
// stages of an answer.
func TestMCPProgressDuringAsk(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	stages := make(chan string, 8)
	opts := &mcpsdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
		stages <- req.Params.Message
	}}
	cs := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "2025-06-18", opts)
	params := &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "How do I configure agent memory?"}}
	params.SetProgressToken("ask-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	var got []string
	waitFor(t, "three progress stages", func() bool {
		for len(stages) > 0 {
			got = append(got, <-stages)
		}
		return len(got) >= 3
	})
	if got[0] != "retrieving" || !regexp.MustCompile(`^[1-9][0-9]* chunks in scope$`).MatchString(got[1]) || got[2] != "generating" {
		t.Errorf("progress stages %q", got)
	}
}

// TestMCPChallengeAndMetadata: in authenticated-read a request without a
// credential gets 401 with the RFC 9728 challenge, whose metadata document
// parses and names the resource; a token issued for another audience than
// the configured resource is refused even though the HTTP routes accept it.
func TestMCPChallengeAndMetadata(t *testing.T) {
	const resourceSuffix = "/mcp"
	g := startGate(t, gateOptions{extraOptions: "site_mode authenticated-read\n\t\tmcp {\n\t\t\tresource https://wiki.example.com/mcp\n\t\t\tscopes wiki.read\n\t\t}",
		agentAud: "wikigate https://wiki.example.com/mcp"})
	r := g.mcpPost(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	challenge := r.Header.Get("WWW-Authenticate")
	m := regexp.MustCompile(`^Bearer resource_metadata="([^"]+)"`).FindStringSubmatch(challenge)
	if r.Status != http.StatusUnauthorized || m == nil {
		t.Fatalf("no credential: %d %q %s", r.Status, challenge, r.Body)
	}
	if !strings.HasSuffix(m[1], "/.well-known/oauth-protected-resource"+resourceSuffix) {
		t.Errorf("metadata URL %q", m[1])
	}
	req, _ := http.NewRequest(http.MethodGet, g.url+"/.well-known/oauth-protected-resource"+resourceSuffix, nil)
	md := g.do(req)
	var meta oauthex.ProtectedResourceMetadata
	if md.Status != 200 || !strings.HasPrefix(md.Header.Get("Content-Type"), "application/json") || json.Unmarshal(md.Body, &meta) != nil {
		t.Fatalf("metadata: %d %s", md.Status, md.Body)
	}
	if meta.Resource != "https://wiki.example.com/mcp" || !slices.Equal(meta.ScopesSupported, []string{"wiki.read"}) || !slices.Contains(meta.BearerMethodsSupported, "header") {
		t.Errorf("metadata %+v", meta)
	}

	httpOnly := agentToken(t, "kunora-coding-agent") // aud wikigate: good for the HTTP routes only
	if r := g.post("/agent/tools/search", bearer(httpOnly), `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("HTTP route refused its own token: %d %s", r.Status, r.Body)
	}
	r = g.mcpPost(bearer(httpOnly), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "audience") {
		t.Errorf("token for another audience: %d %s", r.Status, r.Body)
	}
	forMCP := mintFor(t, "kunora-coding-agent", "https://wiki.example.com/mcp")
	cs := mcpConnect(t, g, forMCP, "", nil)
	if got := mcpToolNames(t, cs); len(got) != 5 {
		t.Errorf("token for the resource lists %v", got)
	}
}

// TestMCPRefusalsNeverReachABackend: a foreign Origin, a non-JSON POST, a
// JSON-RPC batch and a header/body method mismatch are refused, and no
// backend hears of them.
func TestMCPRefusalsNeverReachABackend(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	tok := "Bearer " + agentToken(t, "kunora-coding-agent")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	stateless := map[string]string{"Authorization": tok, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	if r := g.mcpPost(stateless, call); r.Status != 200 || !strings.Contains(string(r.Body), `"hits"`) {
		t.Fatalf("the well-formed call itself: %d %s", r.Status, r.Body)
	}
	meili, rag := g.backendRequests(g.meiliURL, meiliKey), g.backendRequests(g.ragURL, ragflowKey)
	meili++ // the development Meilisearch logs the read of its log too
	cases := map[string]struct {
		hdr  map[string]string
		body string
	}{
		"foreign origin":  {map[string]string{"Origin": "http://evil.example"}, call},
		"non-JSON":        {map[string]string{"Content-Type": "text/plain"}, "search agent memory"},
		"not JSON at all": {nil, "search agent memory"},
		"batch":           {nil, "[" + call + "]"},
		"method mismatch": {map[string]string{"Mcp-Method": "tools/list"}, call},
		"name mismatch":   {map[string]string{"Mcp-Name": "ask"}, call},
	}
	for name, c := range cases {
		hdr := map[string]string{}
		for k, v := range stateless {
			hdr[k] = v
		}
		for k, v := range c.hdr {
			hdr[k] = v
		}
		if r := g.mcpPost(hdr, c.body); r.Status < 400 || r.Status >= 500 {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := g.mcpPost(map[string]string{"Authorization": tok, "Origin": "http://localhost:5173"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.Status == http.StatusForbidden {
		t.Errorf("an allowed local origin was refused: %s", r.Body)
	}
	if m, r := g.backendRequests(g.meiliURL, meiliKey), g.backendRequests(g.ragURL, ragflowKey); m != meili || r != rag {
		t.Errorf("refused requests reached a backend: meilisearch %d new, ragflow %d new", m-meili, r-rag)
	}
}

// mintFor mints an agent token issued for aud.
func mintFor(t *testing.T, agent, aud string) string {
	return mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{aud}, Subject: agent, TTL: time.Hour})
}
