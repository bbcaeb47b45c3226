package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wikigate/wikigate/identity"
)

func TestDeniedCallsGetTheProtocolCodeAndNeverReachABackend(t *testing.T) {
	g := startGate(t, gateOptions{})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	ops := bearer(agentToken(t, "ops-readonly-agent"))
	cases := []struct {
		name, path string
		headers    map[string]string
		body       string
		status     int
		code       string
	}{
		{"other project", "/agent/tools/search", coding, `{"question":"q","scope":{"projects":["kunora-gateway"]}}`, 403, "forbidden_scope"},
		{"extras prefix trap", "/agent/tools/search", coding, `{"question":"q","scope":{"paths":["publish/system/components/kunora-kgent-extras"]}}`, 403, "forbidden_scope"},
		{"working docs", "/agent/tools/search", coding, `{"question":"q","scope":{"includeWorkingDocs":true}}`, 403, "forbidden_scope"},
		{"other version", "/agent/tools/search", coding, `{"question":"q","scope":{"version":"v1.0"}}`, 403, "forbidden_scope"},
		{"page outside grant", "/agent/tools/get_page", coding, `{"path":"publish/system/components/kunora-kgent-extras/index.md"}`, 403, "forbidden_scope"},
		{"ops agent reading a kgent page", "/agent/tools/get_page", ops, `{"path":"publish/system/components/kunora-kgent/index.md"}`, 403, "forbidden_scope"},
		{"no token", "/agent/tools/search", nil, `{"question":"q"}`, 401, "unauthorized"},
		{"bad signature", "/agent/tools/search", bearer(mint(t, identity.MintOptions{Secret: []byte("a-different-secret-of-enough-length-000"), Issuer: agentIssuer, Audience: []string{audience}, Subject: "kunora-coding-agent", TTL: time.Hour})), `{"question":"q"}`, 401, "unauthorized"},
		{"alg none", "/agent/tools/search", bearer(noneToken(t)), `{"question":"q"}`, 401, "unauthorized"},
		{"expired", "/agent/tools/search", bearer(mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{audience}, Subject: "kunora-coding-agent", TTL: time.Hour, Now: func() time.Time { return time.Now().Add(-3 * time.Hour) }})), `{"question":"q"}`, 401, "unauthorized"},
		{"wrong audience", "/agent/tools/search", bearer(mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{"someone-else"}, Subject: "kunora-coding-agent", TTL: time.Hour})), `{"question":"q"}`, 401, "unauthorized"},
		{"unknown agent", "/agent/tools/search", bearer(agentToken(t, "stranger-agent")), `{"question":"q"}`, 401, "unauthorized"},
		{"caller mismatch", "/agent/tools/search", coding, `{"question":"q","caller":{"type":"agent","id":"docs-maintainer-agent"}}`, 401, "unauthorized"},
		{"malformed json", "/agent/tools/search", coding, `{"question":`, 400, "invalid_request"},
		{"unknown field", "/agent/tools/search", coding, `{"question":"q","kb_ids":["x"]}`, 400, "invalid_request"},
		{"dotdot path", "/agent/tools/search", coding, `{"question":"q","scope":{"paths":["publish/system/components/kunora-kgent/../kunora-gateway"]}}`, 400, "invalid_request"},
		{"dotdot page", "/agent/tools/get_page", coding, `{"path":"publish/system/../x.md"}`, 400, "invalid_request"},
		{"empty question", "/agent/tools/search", coding, `{"question":"  "}`, 400, "invalid_request"},
		{"limit too big", "/agent/tools/search", coding, `{"question":"q","limit":51}`, 400, "invalid_request"},
		{"too many paths", "/agent/tools/get_page", coding, `{"paths":[` + strings.Repeat(`"a.md",`, 10) + `"b.md"]}`, 400, "invalid_request"},
		{"oversize body", "/agent/tools/search", coding, `{"question":"` + strings.Repeat("x", 70<<10) + `"}`, 413, "payload_too_large"},
		{"unknown tool", "/agent/tools/delete_everything", coding, `{}`, 404, "not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := g.backendRequests(g.meiliURL, meiliKey)
			r := g.post(tc.path, tc.headers, tc.body)
			if r.Status != tc.status || r.errorCode(t) != tc.code {
				t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, tc.status, tc.code)
			}
			e := r.json(t)["error"].(map[string]any)
			if e["requestId"] != r.Header.Get("X-Request-Id") || e["message"] == "" {
				t.Fatalf("error envelope without requestId/message: %s", r.Body)
			}
			// +1: the log read itself is logged by the development backend.
			if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
				t.Fatalf("a denied call reached Meilisearch (%d new requests)", after-before-1)
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	g := startGate(t, gateOptions{})
	req, _ := http.NewRequest(http.MethodGet, g.url+"/agent/tools/search", nil)
	r := g.do(req)
	if r.Status != 405 || r.errorCode(t) != "method_not_allowed" || r.Header.Get("Allow") != "POST" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
}

func TestSearchBackendUnreachable(t *testing.T) {
	closed := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	g := startGate(t, gateOptions{meiliURL: closed})
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if r.Status != 503 || r.errorCode(t) != "search_unavailable" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), "127.0.0.1") {
		t.Fatalf("error leaks backend internals: %s", r.Body)
	}
	health := g.do(mustGet(t, g.url+"/healthz"))
	if health.Status != 200 || health.json(t)["status"] != "degraded" {
		t.Fatalf("healthz should report a degraded gate: %d %s", health.Status, health.Body)
	}
}

func mustGet(t *testing.T, url string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// noneToken is an unsigned token (alg "none") that must never be accepted.
func noneToken(t *testing.T) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{
		"iss": agentIssuer, "aud": audience, "sub": "kunora-coding-agent", "exp": time.Now().Add(time.Hour).Unix(),
	})
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
