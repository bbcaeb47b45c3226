package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// routeTableOptions turn on every entry of the gate's route table: the
// protocol's routes (RAGFlow, sessions and feedback are configured by
// startGate), the MCP endpoint and its metadata, the widget and its demo,
// and CORS for a docs site.
const routeTableOptions = mcpBlock + `
		widget {
			demo on
		}
		cors {
			allowed_origins https://docs.example.com
		}`

// tableRoutes are the gateway's routes, each with the one method it
// serves. The OpenAPI document must list exactly these (a new route
// makes this test name it).
var tableRoutes = map[string]string{
	"/agent/tools/search":                                 "POST",
	"/agent/tools/get_page":                               "POST",
	"/agent/tools/ask":                                    "POST",
	"/agent/tools/get_context":                            "POST",
	"/agent/tools/create_feedback":                        "POST",
	"/agent/tools/create_improvement_task":                "POST",
	"/answer/search":                                      "POST",
	"/answer/ask":                                         "POST",
	"/answer/feedback":                                    "POST",
	"/answer/sessions":                                    "POST",
	"/answer/sessions/{sessionId}/turns":                  "POST",
	"/answer/sessions/{sessionId}":                        "GET",
	"/answer/streams/{streamId}":                          "GET",
	"/answer/meilisearch/multi-search":                    "POST",
	"/answer/meilisearch/indexes/{indexUid}/search":       "POST",
	"/answer/meilisearch/indexes/{indexUid}/facet-search": "POST",
}

// Every route of the one router answers another method than its own with
// the protocol's 405 (Allow, the refusal's body, audited), never the
// fallback's 404 nor ServeMux's plain text: a route missing from the table
// fails here. The OpenAPI document, built from the same routes, lists no
// route this table lacks.
func TestRouteTableAnswersEveryRoutesOtherMethods(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: routeTableOptions})
	for pattern, method := range tableRoutes {
		path := strings.NewReplacer("{sessionId}", "0123456789abcdef0123456789abcdef", "{streamId}", "s1", "{indexUid}", "wiki").Replace(pattern)
		other := "GET"
		if method == "GET" {
			other = "POST"
		}
		resp := g.request(other, path, nil)
		allowed := resp.header.Get("Allow") == method
		if resp.status != http.StatusMethodNotAllowed || !allowed || resp.header.Get("X-Request-Id") == "" {
			t.Errorf("%s %s: %d Allow %q %s, want the route's 405", other, path, resp.status, resp.header.Get("Allow"), resp.body)
		}
		if !strings.Contains(strings.Join(tableRouteCodes(resp.body), " "), "method_not_allowed") {
			t.Errorf("%s %s: body %s names no method_not_allowed", other, path, resp.body)
		}
	}
	var doc struct{ Paths map[string]any }
	if resp := g.request("GET", "/openapi.json", nil); json.Unmarshal([]byte(resp.body), &doc) != nil || len(doc.Paths) == 0 {
		t.Fatalf("openapi.json: %d %.200s", resp.status, resp.body)
	}
	for path := range doc.Paths {
		if _, ok := tableRoutes[path]; !ok && path != "/healthz" && path != "/openapi.json" { // TestRouteTableAnswersItsOtherEntries
			t.Errorf("the OpenAPI document lists %s, which this test's table lacks", path)
		}
	}
}

// tableRouteCodes are the error codes a refusal's body names: the
// protocol's error.code, or a route set's code.
func tableRouteCodes(body string) []string {
	var b struct {
		Error struct{ Code string } `json:"error"`
		Code  string                `json:"code"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return []string{b.Error.Code, b.Code}
}

// The router's other entries, its fallback and its middleware answer as
// each always did: /healthz, /openapi.json (its own 405), the widget's
// files (a file server's 405, the demo's redirect), the MCP endpoint (its
// own 401 after the Host and Origin checks, which refuse a rebinding page
// with the JSON-RPC envelope) and metadata, the protocol's 404 and a
// route set's own, and the cors block's preflights, on unknown paths too.
func TestRouteTableAnswersItsOtherEntries(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: routeTableOptions})
	docs := map[string]string{"Origin": "https://docs.example.com", "Access-Control-Request-Method": "POST"}
	for _, c := range []struct {
		method, path string
		header       map[string]string
		status       int
		has          string // in the body or, for an empty body, a header value
	}{
		{"GET", "/healthz", nil, 200, `"status"`},
		{"GET", "/openapi.json", nil, 200, `"openapi"`},
		{"POST", "/openapi.json", nil, 405, `"method_not_allowed"`},
		{"GET", "/answer/widget/v1/wikigate-ask.js", nil, 200, "customElements"},
		{"POST", "/answer/widget/v1/wikigate-ask.js", nil, 405, "GET or HEAD"},
		{"GET", "/demo/", nil, 200, "<wikigate-ask"},
		{"GET", "/demo", nil, 301, "/demo/"},
		{"POST", "/mcp", nil, 415, `"jsonrpc"`}, // the endpoint's own check of the message, before the credential
		{"POST", "/mcp", map[string]string{"Host": "evil.example"}, 403, "allowed_hosts"},
		{"POST", "/mcp", map[string]string{"Origin": "https://evil.example"}, 403, "origin is not allowed"},
		{"GET", "/.well-known/oauth-protected-resource", nil, 200, `"resource"`},
		{"GET", "/.well-known/oauth-protected-resource/mcp", nil, 200, `"resource"`},
		{"GET", "/.well-known/oauth-protected-resource/mcp", map[string]string{"Host": "evil.example"}, 403, "allowed_hosts"},
		{"GET", "/nowhere", nil, 404, `"not_found"`},
		{"GET", "/agent/tools//search", nil, 404, `"not_found"`},
		{"POST", "/answer/meilisearch/keys", nil, 404, "/answer/meilisearch"},
		{"OPTIONS", "/answer/ask", docs, 204, "https://docs.example.com"},
		{"OPTIONS", "/answer/nowhere", docs, 204, "https://docs.example.com"},
	} {
		resp := g.request(c.method, c.path, c.header)
		seen := resp.body + resp.header.Get("Location") + resp.header.Get("Access-Control-Allow-Origin")
		if resp.status != c.status || !strings.Contains(seen, c.has) {
			t.Errorf("%s %s %v: %d %.300s, want %d with %q", c.method, c.path, c.header, resp.status, seen, c.status, c.has)
		}
		if slices.Contains([]int{404, 405}, resp.status) && strings.HasPrefix(resp.header.Get("Content-Type"), "text/plain") && c.path != "/answer/widget/v1/wikigate-ask.js" {
			t.Errorf("%s %s: ServeMux's plain-text %d leaked: %s", c.method, c.path, resp.status, resp.body)
		}
	}
}

// tableResponse is what the route table tests read of an answer.
type tableResponse struct {
	status int
	header http.Header
	body   string
}

// request sends one request without following redirects; header "Host"
// sets the Host the gate sees.
func (g *gate) request(method, path string, header map[string]string) tableResponse {
	g.t.Helper()
	req, err := http.NewRequest(method, g.url+path, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: g.client.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return tableResponse{resp.StatusCode, resp.Header, string(body)}
}
