package integration

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func humanToken(t *testing.T, subject string, roles ...string) string {
	return mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: humanIssuer, Audience: []string{audience},
		Subject: subject, TTL: time.Hour, Roles: roles, RolesClaim: "roles"})
}

// checkCitations asserts every citation points at an in-scope page of the
// sample wiki (approved, right project and version, under prefix).
func checkCitations(t *testing.T, citations []any, project, version, prefix string) {
	t.Helper()
	for _, c := range citations {
		cit := c.(map[string]any)
		path := cit["path"].(string)
		if !strings.HasPrefix(path, prefix+"/") || cit["sourceProject"] != project || cit["version"] != version {
			t.Errorf("citation outside scope: %v", cit)
		}
		if cit["url"] == "" || cit["title"] == "" || cit["chunkId"] == "" {
			t.Errorf("citation lacks url/title/chunkId: %v", cit)
		}
		if st := pageStatus(t, version, path); st != "approved" {
			t.Errorf("citation of a %s doc: %s", st, path)
		}
	}
}

func TestHumanAsksOnAPage(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"path":"`+kgentPath+`/index.md"}}`)
	if r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	citations := body["citations"].([]any)
	if body["answer"] == "" || len(citations) == 0 || body["noAnswerReason"] != nil {
		t.Fatalf("want a cited answer: %s", r.Body)
	}
	if c := body["confidence"]; c != "high" && c != "medium" && c != "low" {
		t.Fatalf("confidence %v", c)
	}
	checkCitations(t, citations, "kunora-kgent", "main", kgentPath)
	if body["audit"].(map[string]any)["caller"] != "anonymous" {
		t.Fatalf("audit caller: %v", body["audit"])
	}
}

func TestAgentAsksAndGetsContext(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/agent/tools/ask", tok, `{"question":"How do I configure agent memory with Redis?"}`)
	if r.Status != 200 || len(r.json(t)["citations"].([]any)) == 0 {
		t.Fatalf("agent ask: %d %s", r.Status, r.Body)
	}
	checkCitations(t, r.json(t)["citations"].([]any), "kunora-kgent", "main", kgentPath)

	r = g.post("/agent/tools/get_context", tok, `{"question":"agent memory","maxTokens":600}`)
	if r.Status != 200 {
		t.Fatalf("get_context: %d %s", r.Status, r.Body)
	}
	pack := r.json(t)
	items := pack["items"].([]any)
	if len(items) == 0 || pack["tokenEstimate"].(float64) > 600 || pack["maxTokens"].(float64) != 600 {
		t.Fatalf("context pack: %s", r.Body)
	}
	for _, it := range items {
		item := it.(map[string]any)
		if !strings.HasPrefix(item["path"].(string), kgentPath+"/") || item["content"] == "" {
			t.Errorf("context item outside scope or empty: %v", item)
		}
	}
	if r := g.post("/agent/tools/get_context", tok, `{"question":"q","maxTokens":20000}`); r.Status != 400 {
		t.Fatalf("maxTokens over the cap: %d", r.Status)
	}
}

func TestNoAnswerOffersFeedbackWithAStableDedupeKey(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	ask := func() map[string]any {
		r := g.post("/agent/tools/ask", tok, `{"question":"What is the payroll schedule for contractors?"}`)
		if r.Status != 200 {
			t.Fatalf("ask: %d %s", r.Status, r.Body)
		}
		return r.json(t)
	}
	first := ask()
	if first["confidence"] != "low" || first["noAnswerReason"] == nil || len(first["citations"].([]any)) != 0 {
		t.Fatalf("want an honest no-answer: %v", first)
	}
	if first["noAnswerReason"].(map[string]any)["code"] != "no_answer" {
		t.Fatalf("noAnswerReason: %v", first["noAnswerReason"])
	}
	actions := map[string]map[string]any{}
	for _, a := range first["actions"].([]any) {
		actions[a.(map[string]any)["type"].(string)] = a.(map[string]any)
	}
	fb := actions["create_feedback"]
	if fb == nil || !hex64.MatchString(fb["dedupeKey"].(string)) || fb["enabled"] != true {
		t.Fatalf("create_feedback action: %v", first["actions"])
	}
	if it := actions["create_improvement_task"]; it == nil || it["enabled"] != false {
		t.Fatalf("kunora-coding-agent may not create improvement tasks, the action must be disabled: %v", first["actions"])
	}
	second := ask()
	if second["actions"].([]any)[0].(map[string]any)["dedupeKey"] != first["actions"].([]any)[0].(map[string]any)["dedupeKey"] {
		t.Fatal("the same question twice must give the same dedupeKey")
	}
}

func TestAnswerScopeDenialsNeverReachRAGFlow(t *testing.T) {
	g := startGate(t, gateOptions{})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	cases := []struct {
		name, path string
		headers    map[string]string
		body       string
		status     int
		code       string
	}{
		{"agent scope outside grant", "/agent/tools/ask", coding, `{"question":"agent memory","scope":{"paths":["publish/system/components/kunora-kgent-extras"]}}`, 403, "forbidden_scope"},
		{"agent other project", "/agent/tools/get_context", coding, `{"question":"agent memory","scope":{"projects":["kunora-ops"]}}`, 403, "forbidden_scope"},
		{"tool not granted", "/agent/tools/ask", bearer(agentToken(t, "ops-readonly-agent")), `{"question":"agent memory"}`, 403, "forbidden_tool"},
		{"anonymous working docs", "/answer/ask", nil, `{"question":"agent memory","scope":{"includeWorkingDocs":true}}`, 403, "forbidden_scope"},
		{"human non-maintainer working docs", "/answer/ask", bearer(humanToken(t, "bob")), `{"question":"agent memory","scope":{"includeWorkingDocs":true}}`, 403, "forbidden_scope"},
		{"bad human token", "/answer/ask", bearer("not.a.token"), `{"question":"agent memory"}`, 401, "unauthorized"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := g.backendRequests(g.ragURL, ragflowKey)
			r := g.post(tc.path, tc.headers, tc.body)
			if r.Status != tc.status || r.errorCode(t) != tc.code {
				t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, tc.status, tc.code)
			}
			if after := g.backendRequests(g.ragURL, ragflowKey); after != before {
				t.Fatalf("a denied call reached RAGFlow (%d requests)", after-before)
			}
		})
	}
}

func TestMaintainerMayIncludeWorkingDocs(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", bearer(humanToken(t, "alice", "wiki-maintainer")),
		`{"question":"agent memory design draft","scope":{"projects":["kunora-kgent"],"includeWorkingDocs":true}}`)
	if r.Status != 200 {
		t.Fatalf("maintainer: %d %s", r.Status, r.Body)
	}
}

func TestAuthenticatedReadNeedsAToken(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: "site_mode authenticated-read"})
	if r := g.post("/answer/ask", nil, `{"question":"agent memory"}`); r.Status != 401 || r.errorCode(t) != "unauthorized" {
		t.Fatalf("anonymous in authenticated-read: %d %s", r.Status, r.Body)
	}
	if r := g.post("/answer/ask", bearer(humanToken(t, "carol")), `{"question":"How do I configure agent memory?"}`); r.Status != 200 {
		t.Fatalf("signed-in human: %d %s", r.Status, r.Body)
	}
}
