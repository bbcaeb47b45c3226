package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// answeredQuestion is a question the sample wiki answers with citations.
const answeredQuestion = "How do I configure agent memory?"

// answerAction is the one action of an answered result: create_feedback.
func answerAction(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	cites, _ := body["citations"].([]any)
	if body["noAnswerReason"] != nil || len(cites) == 0 {
		t.Fatalf("not an answer with citations: %v", body)
	}
	acts, _ := body["actions"].([]any)
	if len(acts) != 1 {
		t.Fatalf("an answer's actions: %v", body["actions"])
	}
	act := acts[0].(map[string]any)
	if act["type"] != "create_feedback" || !hex64.MatchString(fmt.Sprint(act["dedupeKey"])) {
		t.Fatalf("an answer's action: %v", act)
	}
	return act
}

// ratingBody is a rating of the answer body: its question and the paths
// it cited, as the action's dedupeKey covers them.
func ratingBody(t *testing.T, question string, answer map[string]any, rating, comment, idem string) string {
	t.Helper()
	var cites []map[string]string
	for _, c := range answer["citations"].([]any) {
		cites = append(cites, map[string]string{"path": c.(map[string]any)["path"].(string)})
	}
	body := map[string]any{"eventType": "qa_answer", "question": question, "citations": cites, "rating": rating}
	if comment != "" {
		body["comment"] = comment
	}
	if idem != "" {
		body["idempotencyKey"] = idem
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func recordOf(t *testing.T, r response) map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("feedback: %d %s", r.Status, r.Body)
	}
	rec, _ := r.json(t)["record"].(map[string]any)
	if rec == nil {
		t.Fatalf("feedback without a record: %s", r.Body)
	}
	return rec
}

// TestAnswerFeedback (issue 24 point 4): an answered result on /answer/ask
// offers create_feedback at /answer/feedback with a dedupeKey over its
// citation paths; a reader's rating (not_helpful with a comment) is stored
// under that key and counted, replayed byte for byte under its
// idempotencyKey and refused as a conflict with another rating, and a
// signed-in reader's "helpful" merges into the same record with both
// ratings counted. A rating needs qa_answer and one of the two values.
// The agent's answer offers the agent tool, whose record has the key of
// the agent's own action.
func TestAnswerFeedback(t *testing.T) {
	g := startGate(t, gateOptions{})
	ask := g.post("/answer/ask", nil, `{"question":"`+answeredQuestion+`"}`).json(t)
	act := answerAction(t, ask)
	if act["enabled"] != true || act["endpoint"] != "/answer/feedback" {
		t.Fatalf("people's answer action: %v", act)
	}

	submit := ratingBody(t, answeredQuestion, ask, "not_helpful", "the retention setting is missing", "rate-1")
	first := g.post("/answer/feedback", nil, submit)
	rec := recordOf(t, first)
	want := map[string]any{"helpful": 0.0, "notHelpful": 1.0}
	if first.json(t)["created"] != true || rec["dedupeKey"] != act["dedupeKey"] || rec["eventType"] != "qa_answer" || rec["count"] != 1.0 || !reflect.DeepEqual(rec["ratings"], want) {
		t.Fatalf("a rating of the answer: %s (action %v)", first.Body, act)
	}
	if replay := g.post("/answer/feedback", nil, submit); !bytes.Equal(replay.Body, first.Body) || replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry is not a replay: %d %s", replay.Status, replay.Body)
	}
	conflict := g.post("/answer/feedback", nil, strings.Replace(submit, "not_helpful", "helpful", 1))
	if conflict.Status != 409 || conflict.errorCode(t) != "idempotency_conflict" {
		t.Fatalf("another rating under the same key: %d %s", conflict.Status, conflict.Body)
	}

	bob := bearer(humanToken(t, "bob"))
	bobAsk := g.post("/answer/ask", bob, `{"question":"`+answeredQuestion+`"}`).json(t)
	if a := answerAction(t, bobAsk); a["dedupeKey"] != act["dedupeKey"] {
		t.Fatalf("the same answer in the same scope has another key: %v and %v", a, act)
	}
	merged := recordOf(t, g.post("/answer/feedback", bob, ratingBody(t, answeredQuestion, bobAsk, "helpful", "", "")))
	want = map[string]any{"helpful": 1.0, "notHelpful": 1.0}
	if merged["id"] != rec["id"] || merged["count"] != 2.0 || !reflect.DeepEqual(merged["ratings"], want) {
		t.Fatalf("bob's rating is not merged: %v (first %v)", merged, rec)
	}

	for name, body := range map[string]string{
		"no rating":       strings.Replace(ratingBody(t, answeredQuestion, ask, "helpful", "", ""), `"rating":"helpful"`, `"comment":"x"`, 1),
		"unknown rating":  ratingBody(t, answeredQuestion, ask, "meh", "", ""),
		"gap with rating": `{"eventType":"qa_no_answer","question":"q","rating":"helpful"}`,
	} {
		r := g.post("/answer/feedback", bob, body)
		if r.Status != 400 || r.errorCode(t) != "invalid_request" || !strings.Contains(string(r.Body), "rating") {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}

	agent := bearer(agentToken(t, "kunora-coding-agent"))
	agentAsk := g.post("/agent/tools/ask", agent, `{"question":"`+answeredQuestion+`"}`).json(t)
	agentAct := answerAction(t, agentAsk)
	if agentAct["endpoint"] != nil || agentAct["enabled"] != true {
		t.Fatalf("the agent's answer action: %v", agentAct)
	}
	agentRec := recordOf(t, g.post("/agent/tools/create_feedback", agent, ratingBody(t, answeredQuestion, agentAsk, "not_helpful", "", "")))
	if agentRec["dedupeKey"] != agentAct["dedupeKey"] {
		t.Fatalf("the agent's record %v, its action %v", agentRec, agentAct)
	}
}

// TestAnswerFeedbackInSessionHistory: a session turn's answer offers the
// rating action, and the session's history offers each turn's actions as
// the turn did, so a restored conversation rates under the same key.
func TestAnswerFeedbackInSessionHistory(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/sessions", nil, `{"question":"`+answeredQuestion+`"}`)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	id, token := created["sessionId"].(string), created["sessionToken"].(string)
	firstAct := answerAction(t, created["firstAnswer"].(map[string]any))
	turn := g.post("/answer/sessions/"+id+"/turns", withSession(nil, token), `{"question":"What is the office catering menu?"}`).json(t)
	gapAct := feedbackAction(t, turn)

	h := g.getSession(id, withSession(nil, token))
	if h.Status != 200 {
		t.Fatalf("history: %d %s", h.Status, h.Body)
	}
	turns, _ := h.json(t)["turns"].([]any)
	if len(turns) != 2 {
		t.Fatalf("history turns: %s", h.Body)
	}
	for i, want := range []any{created["firstAnswer"].(map[string]any)["actions"], turn["actions"]} {
		if got := turns[i].(map[string]any)["actions"]; !reflect.DeepEqual(got, want) {
			t.Errorf("turn %d: history actions %v, the answer's %v", i, got, want)
		}
	}
	rec := recordOf(t, g.post("/answer/feedback", nil, ratingBody(t, answeredQuestion, created["firstAnswer"].(map[string]any), "not_helpful", "", "")))
	if rec["dedupeKey"] != firstAct["dedupeKey"] || gapAct["dedupeKey"] == firstAct["dedupeKey"] {
		t.Fatalf("a restored turn's rating: record %v, action %v", rec, firstAct)
	}
}
