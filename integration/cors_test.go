package integration

import (
	"net/http"
	"strings"
	"testing"
)

func (g *gate) preflight(path, origin string) response {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, g.url+path, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	return g.do(req)
}

func corsHeaders(h http.Header) []string {
	var out []string
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out = append(out, k)
		}
	}
	return out
}

func TestCORSForTheAnswerRoutesOnly(t *testing.T) {
	const docs = "https://docs.example.com"
	g := startGate(t, gateOptions{extraOptions: "cors {\n allowed_origins " + docs + "\n max_age 5m\n}"})

	ok := g.preflight("/answer/ask", docs)
	if ok.Status != 204 || ok.Header.Get("Access-Control-Allow-Origin") != docs || ok.Header.Get("Access-Control-Allow-Methods") != "GET, POST" ||
		ok.Header.Get("Access-Control-Max-Age") != "300" || !strings.Contains(ok.Header.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Fatalf("preflight from the docs site: %d %v", ok.Status, ok.Header)
	}
	if r := g.preflight("/answer/sessions/0123456789abcdef0123456789abcdef/turns", docs); r.Status != 204 {
		t.Fatalf("preflight of a session turn: %d", r.Status)
	}
	refused := g.preflight("/answer/ask", "https://evil.example")
	if refused.Status != 403 || len(corsHeaders(refused.Header)) != 0 {
		t.Fatalf("preflight from another origin: %d %v", refused.Status, refused.Header)
	}

	r := g.post("/answer/ask", map[string]string{"Origin": docs}, `{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}`)
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != docs || !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Fatalf("ask from the docs site: %d %v", r.Status, r.Header)
	}
	if r := g.post("/answer/ask", map[string]string{"Origin": "https://evil.example"}, `{"question":"agent memory"}`); len(corsHeaders(r.Header)) != 0 {
		t.Fatalf("CORS headers for another origin: %v", r.Header)
	}

	agent := g.preflight("/agent/tools/ask", docs)
	if agent.Status == 204 || len(corsHeaders(agent.Header)) != 0 {
		t.Fatalf("preflight of an agent route: %d %v", agent.Status, agent.Header)
	}
	search := g.post("/agent/tools/search", map[string]string{"Origin": docs, "Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}, `{"question":"agent memory"}`)
	if search.Status != 200 || len(corsHeaders(search.Header)) != 0 {
		t.Fatalf("agent call from a page: %d %v", search.Status, search.Header)
	}
}

func TestCORSPathsCanNameTheAgentRoutes(t *testing.T) {
	const app = "https://agents.example.com"
	g := startGate(t, gateOptions{extraOptions: "cors {\n allowed_origins " + app + "\n credentials on\n allowed_headers Authorization Content-Type X-Agent-Api-Key\n paths /answer/ /agent/tools/\n}"})
	r := g.preflight("/agent/tools/ask", app)
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != app || r.Header.Get("Access-Control-Allow-Credentials") != "true" ||
		r.Header.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type, X-Agent-Api-Key" {
		t.Fatalf("agent preflight with paths: %d %v", r.Status, r.Header)
	}
}

func TestNoCORSWithoutTheBlock(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.preflight("/answer/ask", "https://docs.example.com")
	if r.Status != 405 || len(corsHeaders(r.Header)) != 0 {
		t.Fatalf("preflight without a cors block: %d %v", r.Status, r.Header)
	}
}
