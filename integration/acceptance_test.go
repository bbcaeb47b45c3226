package integration

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// TestProtocolAcceptance runs the protocol specification's acceptance table
// row by row (each row's rule is in docs/protocol.md), through a real Caddy
// with the development backends.
func TestProtocolAcceptance(t *testing.T) {
	// A 3 s session ttl: long enough for a multi-turn session's turns on a
	// loaded machine (1 s expired mid-session under a parallel CI run),
	// short enough to wait out for session_expired.
	g := startGate(t, gateOptions{extraOptions: "sessions {\n ttl 3s\n}"})
	coding := bearer(agentToken(t, "kunora-coding-agent"))

	t.Run("human asks on a page: answer, citations, confidence", func(t *testing.T) {
		r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}`)
		body := r.json(t)
		if r.Status != 200 || body["answer"] == "" || len(body["citations"].([]any)) == 0 || body["confidence"] == "" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		checkCitations(t, body["citations"].([]any), "kunora-kgent", "main", kgentPath)
	})
	t.Run("agent asks outside its paths: forbidden_scope", func(t *testing.T) {
		r := g.post("/agent/tools/ask", coding, `{"question":"agent memory","scope":{"paths":["publish/operations"]}}`)
		if r.Status != 403 || r.errorCode(t) != "forbidden_scope" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("agent calls a tool it is not granted: forbidden_tool", func(t *testing.T) {
		r := g.post("/agent/tools/create_improvement_task", coding, `{"eventType":"qa_no_answer","question":"payroll?","title":"Document payroll"}`)
		if r.Status != 403 || r.errorCode(t) != "forbidden_tool" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("no answer: noAnswerReason and a feedback action", func(t *testing.T) {
		r := g.post("/agent/tools/ask", coding, `{"question":"What is the office catering menu?"}`)
		body := r.json(t)
		if r.Status != 200 || body["noAnswerReason"] == nil || body["confidence"] != "low" || len(body["actions"].([]any)) == 0 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("repeated no-answer feedback reuses the record", func(t *testing.T) {
		submit := `{"eventType":"qa_no_answer","question":"What is the office catering menu?"}`
		first := g.post("/agent/tools/create_feedback", coding, submit).json(t)
		second := g.post("/agent/tools/create_feedback", coding, submit).json(t)
		r1, r2 := first["record"].(map[string]any), second["record"].(map[string]any)
		if r1["id"] != r2["id"] || r2["count"].(float64) != 2 || second["created"] != false || first["created"] != true {
			t.Fatalf("first %v, second %v", first, second)
		}
		if !hex64.MatchString(r1["dedupeKey"].(string)) || strings.Contains(fmt.Sprint(first), "catering") {
			t.Fatalf("the response must show a hashed dedupeKey and no question text: %v", first)
		}
	})
	t.Run("multi-turn keeps scope and citations", func(t *testing.T) { multiTurn(t, g, coding) })
	t.Run("non-owner turn: session_forbidden", func(t *testing.T) {
		id, token := createSession(t, g, coding)
		other := bearer(agentToken(t, "docs-maintainer-agent"))
		r := g.post("/answer/sessions/"+id+"/turns", withSession(other, token), `{"question":"agent memory"}`)
		if r.Status != 403 || r.errorCode(t) != "session_forbidden" {
			t.Fatalf("other agent: %d %s", r.Status, r.Body)
		}
		r = g.post("/answer/sessions/"+id+"/turns", withSession(coding, "not-the-token"), `{"question":"agent memory"}`)
		if r.Status != 403 || r.errorCode(t) != "session_forbidden" {
			t.Fatalf("wrong token: %d %s", r.Status, r.Body)
		}
	})
	t.Run("expired session: session_expired", func(t *testing.T) {
		id, token := createSession(t, g, coding)
		time.Sleep(3100 * time.Millisecond) // the test config's session ttl is 3s
		r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"agent memory"}`)
		if r.Status != 410 || r.errorCode(t) != "session_expired" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("RAGFlow unreachable: an error, no invented answer", func(t *testing.T) {
		// Loaded over the gate above (one Caddy per process): the same
		// session settings, since a reload may not resize the live store.
		down := startGate(t, gateOptions{ragflowURL: fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), extraOptions: "sessions {\n ttl 3s\n}"})
		r := down.post("/answer/ask", nil, `{"question":"How do I configure agent memory?"}`)
		if r.Status != 503 || r.errorCode(t) != "ragflow_unavailable" || strings.Contains(string(r.Body), `"answer":`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func withSession(h map[string]string, token string) map[string]string {
	out := map[string]string{"X-Session-Token": token}
	for k, v := range h {
		out[k] = v
	}
	return out
}

func createSession(t *testing.T, g *gate, auth map[string]string) (id, token string) {
	t.Helper()
	r := g.post("/answer/sessions", auth, `{}`)
	if r.Status != 200 {
		t.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	return body["sessionId"].(string), body["sessionToken"].(string)
}

func multiTurn(t *testing.T, g *gate, coding map[string]string) {
	r := g.post("/answer/sessions", coding, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	id, token := created["sessionId"].(string), created["sessionToken"].(string)
	first := created["firstAnswer"].(map[string]any)
	if len(first["citations"].([]any)) == 0 || created["scope"].(map[string]any)["paths"].([]any)[0] != kgentPath {
		t.Fatalf("first turn: %s", r.Body)
	}
	for _, q := range []string{"How do I use Redis as the memory store?", "And what TTL should it have?"} {
		r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"`+q+`"}`)
		body := r.json(t)
		if r.Status != 200 || len(body["citations"].([]any)) == 0 {
			t.Fatalf("turn %q: %d %s", q, r.Status, r.Body)
		}
		checkCitations(t, body["citations"].([]any), "kunora-kgent", "main", kgentPath)
		if a := body["audit"].(map[string]any); a["sessionId"] != id || a["scope"] != "main:"+kgentPath {
			t.Fatalf("turn audit %v", a)
		}
	}
	wider := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"q","scope":{"paths":["publish/system/components/kunora-gateway"]}}`)
	if wider.Status != 403 || wider.errorCode(t) != "forbidden_scope" {
		t.Fatalf("a wider turn: %d %s", wider.Status, wider.Body)
	}
}

func TestConcurrentFeedbackMakesOneRecord(t *testing.T) {
	g := startGate(t, gateOptions{})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	var wg sync.WaitGroup
	ids := make([]string, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"k-%d"}`, i)
			r := g.post("/agent/tools/create_feedback", coding, body)
			if r.Status == 200 {
				ids[i] = r.json(t)["record"].(map[string]any)["id"].(string)
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id == "" || id != ids[0] {
			t.Fatalf("want one record for all 20 submissions, got ids %v", ids)
		}
	}
	retry := `{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"k-3"}`
	a := g.post("/agent/tools/create_feedback", coding, retry)
	b := g.post("/agent/tools/create_feedback", coding, retry)
	if a.Status != 200 || string(a.Body) != string(b.Body) {
		t.Fatalf("a retry must replay the first response byte for byte:\n%s\n%s", a.Body, b.Body)
	}
	count := g.post("/agent/tools/create_feedback", coding, `{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"probe"}`)
	if c := count.json(t)["record"].(map[string]any)["count"].(float64); c != 21 {
		t.Fatalf("20 submissions + 1 probe must count 21 (replays add nothing), got %v", c)
	}
	conflict := g.post("/agent/tools/create_feedback", coding, `{"eventType":"qa_no_answer","question":"Something else","idempotencyKey":"k-3"}`)
	if conflict.Status != 409 || conflict.errorCode(t) != "idempotency_conflict" {
		t.Fatalf("same key, other body: %d %s", conflict.Status, conflict.Body)
	}
}

func TestFeedbackSurvivesARestart(t *testing.T) {
	path := t.TempDir() + "/feedback.db"
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	submit := `{"eventType":"qa_no_answer","question":"Where is the vacation policy?"}`
	g := startGate(t, gateOptions{feedbackPath: path})
	first := g.post("/agent/tools/create_feedback", coding, submit)
	if first.Status != 200 {
		t.Fatalf("%d %s", first.Status, first.Body)
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	g = startGate(t, gateOptions{feedbackPath: path})
	second := g.post("/agent/tools/create_feedback", coding, submit).json(t)["record"].(map[string]any)
	if second["id"] != first.json(t)["record"].(map[string]any)["id"] || second["count"].(float64) != 2 {
		t.Fatalf("after a restart the record must continue: %v", second)
	}
}

// TestStoresOutliveAConfigReload: a forced config reload provisions a new
// gate before the old one is cleaned up; sessions and the feedback store are
// shared across it, so a session keeps working and feedback keeps counting
// (and the bbolt file is not opened twice).
func TestStoresOutliveAConfigReload(t *testing.T) {
	g := startGate(t, gateOptions{})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	submit := `{"eventType":"qa_no_answer","question":"Where is the vacation policy?"}`
	if r := g.post("/agent/tools/create_feedback", coding, submit); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	id, token := createSession(t, g, coding)
	g.reload()
	r := g.post("/agent/tools/create_feedback", coding, submit)
	if r.Status != 200 || r.json(t)["record"].(map[string]any)["count"].(float64) != 2 {
		t.Fatalf("feedback after a reload: %d %s", r.Status, r.Body)
	}
	if r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"How do I configure agent memory?"}`); r.Status != 200 {
		t.Fatalf("session turn after a reload: %d %s", r.Status, r.Body)
	}
}
