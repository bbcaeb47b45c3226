package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// noAnswerQuestion is a question the sample wiki cannot answer.
const noAnswerQuestion = "What is the office catering menu?"

// feedbackAction is the create_feedback action of a no-answer.
func feedbackAction(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	if body["noAnswerReason"] == nil {
		t.Fatalf("not a no-answer: %v", body)
	}
	for _, a := range body["actions"].([]any) {
		if act := a.(map[string]any); act["type"] == "create_feedback" {
			return act
		}
	}
	t.Fatalf("no create_feedback action: %v", body["actions"])
	return nil
}

// People's feedback in public-read with anonymous feedback accepted (the
// shipped policy): the no-answer action of /answer/ask points at
// /answer/feedback with the record's dedupeKey; an anonymous reader's
// report is stored, replayed byte for byte under its idempotencyKey, merged
// with a signed-in reader's report of the same gap, and refused with 429
// and Retry-After past the per-address budget (5), while the signed-in
// reader keeps their own budget.
func TestPeopleFeedbackAnonymous(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{})
	ask := g.post("/answer/ask", nil, `{"question":"`+noAnswerQuestion+`"}`)
	act := feedbackAction(t, ask.json(t))
	if act["enabled"] != true || act["endpoint"] != "/answer/feedback" || !hex64.MatchString(act["dedupeKey"].(string)) {
		t.Fatalf("people's feedback action: %v", act)
	}
	agentAsk := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"`+noAnswerQuestion+`"}`)
	if a := feedbackAction(t, agentAsk.json(t)); a["endpoint"] != nil {
		t.Fatalf("an agent's action names a route: %v", a)
	}

	submit := `{"eventType":"qa_no_answer","question":"` + noAnswerQuestion + `","comment":"nothing about lunch","idempotencyKey":"reader-1"}`
	first := g.post("/answer/feedback", nil, submit)
	rec, _ := first.json(t)["record"].(map[string]any)
	if first.Status != 200 || first.json(t)["created"] != true || rec["count"].(float64) != 1 || rec["dedupeKey"] != act["dedupeKey"] {
		t.Fatalf("anonymous feedback: %d %s (action %v)", first.Status, first.Body, act)
	}
	if caller := first.json(t)["audit"].(map[string]any)["caller"]; caller != "anonymous" {
		t.Fatalf("audit.caller %v", caller)
	}
	replay := g.post("/answer/feedback", nil, submit)
	if replay.Status != 200 || !bytes.Equal(replay.Body, first.Body) {
		t.Fatalf("replay is not byte-identical:\n%s\n%s", first.Body, replay.Body)
	}
	// The body is the first call's; the retry says it is a replay
	// (Idempotent-Replayed), its own id is its header, and its audit
	// record says it was a replay.
	if replay.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("Idempotent-Replayed: first %q, replay %q", first.Header.Get("Idempotent-Replayed"), replay.Header.Get("Idempotent-Replayed"))
	}
	replayID := replay.Header.Get("X-Request-Id")
	if replayID == "" || replayID == first.Header.Get("X-Request-Id") {
		t.Fatalf("the replay's X-Request-Id %q is not its own", replayID)
	}
	if rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == replayID }); rec["result"] != "replayed" {
		t.Fatalf("the replay's audit record: %v", rec)
	}
	conflict := g.post("/answer/feedback", nil, strings.Replace(submit, "lunch", "dinner", 1))
	if conflict.Status != 409 || conflict.errorCode(t) != "idempotency_conflict" {
		t.Fatalf("a different body under the key: %d %s", conflict.Status, conflict.Body)
	}

	bob := bearer(humanToken(t, "bob"))
	merged := g.post("/answer/feedback", bob, `{"eventType":"qa_no_answer","question":"`+noAnswerQuestion+`"}`)
	mrec, _ := merged.json(t)["record"].(map[string]any)
	if merged.Status != 200 || merged.json(t)["created"] != false || mrec["id"] != rec["id"] || mrec["count"].(float64) != 2 {
		t.Fatalf("the same gap from bob is not merged: %d %s", merged.Status, merged.Body)
	}

	// Three submissions used the anonymous budget of 5 (a replay and a
	// conflict count too): two more pass, the next is 429.
	for i := range 2 {
		r := g.post("/answer/feedback", nil, fmt.Sprintf(`{"eventType":"qa_no_answer","question":"gap %d"}`, i))
		if r.Status != 200 {
			t.Fatalf("submission %d inside the budget: %d %s", i+4, r.Status, r.Body)
		}
	}
	limited := g.post("/answer/feedback", nil, `{"eventType":"qa_no_answer","question":"one too many"}`)
	if limited.Status != 429 || limited.errorCode(t) != "rate_limited" {
		t.Fatalf("past the budget: %d %s", limited.Status, limited.Body)
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Fatalf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
	if r := g.post("/answer/feedback", bob, `{"eventType":"qa_no_answer","question":"bob's own gap"}`); r.Status != 200 {
		t.Fatalf("bob is limited by the anonymous budget: %d %s", r.Status, r.Body)
	}
}

// With data.humans.feedback.anonymous false, an anonymous reader's
// feedback is forbidden_tool (before the body is read) and their no-answer
// action says enabled:false; a signed-in reader's is accepted, and the
// refused one left no record behind.
func TestPeopleFeedbackRefusedByPolicy(t *testing.T) {
	dir := copyDir(t, "../rego")
	data, err := os.ReadFile(filepath.Join(dir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"feedback": {"anonymous": true}`), []byte(`"feedback": {"anonymous": false}`), 1)
	if err := os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	g := startGate(t, gateOptions{policyDir: dir})

	act := feedbackAction(t, g.post("/answer/ask", nil, `{"question":"`+noAnswerQuestion+`"}`).json(t))
	if act["enabled"] != false || act["endpoint"] != "/answer/feedback" {
		t.Fatalf("anonymous action when the policy refuses: %v", act)
	}
	bob := bearer(humanToken(t, "bob"))
	if a := feedbackAction(t, g.post("/answer/ask", bob, `{"question":"`+noAnswerQuestion+`"}`).json(t)); a["enabled"] != true {
		t.Fatalf("signed-in action: %v", a)
	}
	submit := `{"eventType":"qa_no_answer","question":"` + noAnswerQuestion + `"}`
	r := g.post("/answer/feedback", nil, submit)
	if r.Status != 403 || r.errorCode(t) != "forbidden_tool" || !strings.Contains(string(r.Body), "anonymous feedback is not accepted") {
		t.Fatalf("anonymous feedback: %d %s", r.Status, r.Body)
	}
	ok := g.post("/answer/feedback", bob, submit)
	if ok.Status != 200 || ok.json(t)["created"] != true {
		t.Fatalf("signed-in feedback after a refused anonymous one: %d %s", ok.Status, ok.Body)
	}
}

// In authenticated-read, people's feedback needs a sign-in like every
// /answer/* route.
func TestPeopleFeedbackAuthenticatedRead(t *testing.T) {
	g := startGate(t, gateOptions{extraOptions: "site_mode authenticated-read"})
	submit := `{"eventType":"qa_no_answer","question":"` + noAnswerQuestion + `"}`
	if r := g.post("/answer/feedback", nil, submit); r.Status != 401 || r.errorCode(t) != "unauthorized" {
		t.Fatalf("anonymous: %d %s", r.Status, r.Body)
	}
	if r := g.post("/answer/feedback", bearer(humanToken(t, "bob")), submit); r.Status != 200 {
		t.Fatalf("signed in: %d %s", r.Status, r.Body)
	}
}

// feedback { people_limit 2 1h }: two reports from an address pass, the
// third is 429 naming the hour the budget takes to earn one back (the
// default budget would name at most a minute).
func TestPeopleFeedbackLimitFromTheCaddyfile(t *testing.T) {
	g := peopleFeedbackBudgetSpent(t)
	limited := g.post("/answer/feedback", nil, `{"eventType":"qa_no_answer","question":"a third gap"}`)
	if limited.Status != 429 || limited.errorCode(t) != "rate_limited" {
		t.Fatalf("a third report: %d %s", limited.Status, limited.Body)
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 3000 || s > 3600 {
		t.Fatalf("Retry-After %q, want about an hour", limited.Header.Get("Retry-After"))
	}
}

// peopleFeedbackBudgetSpent is a gate whose Caddyfile sets feedback {
// people_limit 2 1h }, after two anonymous reports from this address that
// the budget let through.
func peopleFeedbackBudgetSpent(t *testing.T) *gate {
	t.Helper()
	g := startGate(t, gateOptions{})
	const block = "feedback {\n\t\t\tpath"
	if !strings.Contains(g.config, block) {
		t.Fatalf("the test Caddyfile has no feedback block to extend:\n%s", g.config)
	}
	g.config = strings.Replace(g.config, block, "feedback {\n\t\t\tpeople_limit 2 1h\n\t\t\tpath", 1)
	g.reload()
	for i := range 2 {
		if r := g.post("/answer/feedback", nil, fmt.Sprintf(`{"eventType":"qa_no_answer","question":"gap %d"}`, i)); r.Status != 200 {
			t.Fatalf("report %d inside the budget: %d %s", i+1, r.Status, r.Body)
		}
	}
	return g
}

// A gate without a feedback block serves no /answer/feedback, so a
// no-answer offers no report: its create_feedback action is enabled:false
// and names no route.
func TestPeopleFeedbackActionWithoutAFeedbackStore(t *testing.T) {
	g := startGate(t, gateOptions{})
	block := "feedback {\n\t\t\tpath " + g.feedbackPath + "\n\t\t}"
	if !strings.Contains(g.config, block) {
		t.Fatalf("the test Caddyfile has no feedback block to remove:\n%s", g.config)
	}
	g.config = strings.Replace(g.config, block, "", 1)
	g.reload()
	act := feedbackAction(t, g.post("/answer/ask", nil, `{"question":"`+noAnswerQuestion+`"}`).json(t))
	if act["enabled"] != false || act["endpoint"] != nil {
		t.Fatalf("a gate without feedback offers: %v", act)
	}
	if r := g.post("/answer/feedback", nil, `{"eventType":"qa_no_answer","question":"x"}`); r.Status != 404 {
		t.Fatalf("POST /answer/feedback without a store: %d %s", r.Status, r.Body)
	}
}
