package integration

import (
	"bytes"
	"compress/gzip"
	"maps"
	"strings"
	"testing"
)

// strictCases are bodies another JSON reader (a proxy, a WAF) could read
// differently than a case-folding, last-duplicate-wins, U+FFFD-replacing
// decoder: each must be refused, naming the field.
var strictCases = []struct {
	name, body, field string
}{
	{"duplicate key", `{"question":"agent memory","question":"payroll"}`, `duplicate field "question"`},
	{"case variant", `{"Question":"agent memory"}`, `unknown field "Question"`},
	{"upper-case object", `{"question":"agent memory","SCOPE":{"projects":["kunora-gateway"]}}`, `unknown field "SCOPE"`},
	{"long s", "{\"question\":\"agent memory\",\"\u017fcope\":{\"projects\":[\"kunora-gateway\"]}}", "unknown field \"\u017fcope\""},
	{"kelvin sign", "{\"question\":\"agent memory\",\"scope\":{\"includeWor\u212aingDocs\":true}}", "unknown field \"includeWor\u212aingDocs\" in \"scope\""},
	{"invalid UTF-8", "{\"question\":\"agent \xff memory\"}", `invalid UTF-8 in field "question"`},
}

// TestStrictJSONOnEveryRoute sends each strict case to every route through
// a real Caddy, with a caller allowed to use the route.
func TestStrictJSONOnEveryRoute(t *testing.T) {
	g := startGate(t, gateOptions{})
	maintainer := bearer(agentToken(t, "docs-maintainer-agent"))
	id, sessionToken := createSession(t, g, maintainer)
	routes := map[string]map[string]string{
		"/agent/tools/search":                  maintainer,
		"/agent/tools/get_page":                maintainer,
		"/agent/tools/ask":                     maintainer,
		"/agent/tools/get_context":             maintainer,
		"/agent/tools/create_feedback":         maintainer,
		"/agent/tools/create_improvement_task": maintainer,
		"/answer/ask":                          nil, // anonymous, public-read
		"/answer/sessions":                     maintainer,
		"/answer/sessions/" + id + "/turns":    withSession(maintainer, sessionToken),
	}
	for route, headers := range routes {
		for _, tc := range strictCases {
			r := g.post(route, headers, tc.body)
			if r.Status != 400 || r.errorCode(t) != "invalid_request" {
				t.Errorf("%s, %s: got %d %s", route, tc.name, r.Status, r.Body)
				continue
			}
			if msg := errorMessage(t, r); !strings.Contains(msg, tc.field) {
				t.Errorf("%s, %s: message %q does not name %s", route, tc.name, msg, tc.field)
			}
		}
	}
}

// TestStrictJSONKeepsWellFormedBodies: the same requests, written once and
// exactly, are served.
func TestStrictJSONKeepsWellFormedBodies(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/agent/tools/search", tok, `{"question":"agent memory","scope":{"projects":["kunora-kgent"],"includeWorkingDocs":false}}`)
	if r.Status != 200 {
		t.Fatalf("search: %d %s", r.Status, r.Body)
	}
	r = g.post("/agent/tools/search", tok, "{\"question\":\"agent memory \u00e9t\u00e9\"}")
	if r.Status != 200 {
		t.Fatalf("search with non-ASCII UTF-8: %d %s", r.Status, r.Body)
	}
}

// errorMessage returns error.message of a protocol error body.
func errorMessage(t *testing.T, r response) string {
	t.Helper()
	e, ok := r.json(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error envelope (%d): %s", r.Status, r.Body)
	}
	msg, _ := e["message"].(string)
	return msg
}

// TestCompressedAndMarkedBodiesAreNamed: a gzip body (with or without its
// Content-Encoding) and a body behind a UTF-8 byte order mark are refused
// with a message that says which, on the HTTP routes and over MCP, and
// never reach a backend.
func TestCompressedAndMarkedBodiesAreNamed(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: mcpBlock})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(`{"question":"agent memory"}`))
	zw.Close()
	meiliBefore, ragBefore := g.backendRequests(g.meiliURL, meiliKey), g.backendRequests(g.ragURL, ragflowKey)
	gzipped := map[string]string{"Content-Encoding": "gzip"}
	maps.Copy(gzipped, tok)
	for _, tc := range []struct {
		name, route string
		headers     map[string]string
		body, want  string
	}{
		{"gzip with its header", "/agent/tools/search", gzipped, zipped.String(), "uncompressed"},
		{"gzip without its header", "/agent/tools/search", tok, zipped.String(), "gzip-compressed"},
		{"gzip from a page", "/answer/ask", map[string]string{"Content-Encoding": "gzip"}, zipped.String(), "uncompressed"},
		{"byte order mark", "/agent/tools/search", tok, "\xef\xbb\xbf" + `{"question":"agent memory"}`, "byte order mark"},
	} {
		r := g.post(tc.route, tc.headers, tc.body)
		if r.Status != 400 || r.errorCode(t) != "invalid_request" || !strings.Contains(errorMessage(t, r), tc.want) {
			t.Errorf("%s: got %d %s, want invalid_request naming %q", tc.name, r.Status, r.Body, tc.want)
		}
	}
	// +1: development Meilisearch logs the log read itself (RAGFlow does not).
	if m, r := g.backendRequests(g.meiliURL, meiliKey), g.backendRequests(g.ragURL, ragflowKey); m != meiliBefore+1 || r != ragBefore {
		t.Fatalf("refused bodies reached the backends: %d Meilisearch and %d RAGFlow requests", m-meiliBefore-1, r-ragBefore)
	}
	hdr := map[string]string{"Content-Encoding": "gzip", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	maps.Copy(hdr, tok)
	r := g.mcpPost(hdr, zipped.String())
	if r.Status != 415 || !strings.Contains(string(r.Body), "uncompressed") {
		t.Fatalf("MCP with a Content-Encoding: %d %s", r.Status, r.Body)
	}
}
