package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
)

// getSession reads a session's history through g.
func (g *gate) getSession(id string, headers map[string]string) response {
	g.t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.url+"/answer/sessions/"+id, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return g.do(req)
}

// historySession creates a session with an answered first question and
// a follow-up that has no answer, and returns it with both answers.
func historySession(t *testing.T, g *gate, auth map[string]string) (created, noAnswer map[string]any) {
	t.Helper()
	r := g.post("/answer/sessions", auth, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	created = r.json(t)
	turn := g.post("/answer/sessions/"+created["sessionId"].(string)+"/turns", withSession(auth, created["sessionToken"].(string)),
		`{"question":"What is the payroll schedule for contractors?"}`)
	if turn.Status != 200 {
		t.Fatalf("turn: %d %s", turn.Status, turn.Body)
	}
	return created, turn.json(t)
}

func sha(q string) string {
	sum := sha256.Sum256([]byte(q))
	return hex.EncodeToString(sum[:])
}

// checkHistory: the history has the session's scope, limits and expiry,
// and its turns' answers, citations, no-answer reasons and times; the
// questions as hashes unless clear is set.
func checkHistory(t *testing.T, h, created, noAnswer map[string]any, clear bool) {
	t.Helper()
	for _, k := range []string{"sessionId", "scope", "limits", "expiresAt", "createdAt"} {
		if !reflect.DeepEqual(h[k], created[k]) {
			t.Errorf("history %s = %v, created %v", k, h[k], created[k])
		}
	}
	turns, _ := h["turns"].([]any)
	if len(turns) != 2 {
		t.Fatalf("history turns: %v", h["turns"])
	}
	first, second := turns[0].(map[string]any), turns[1].(map[string]any)
	fa := created["firstAnswer"].(map[string]any)
	if first["answer"] != fa["answer"] || fa["answer"] == "" || !reflect.DeepEqual(first["citations"], fa["citations"]) || first["noAnswerReason"] != nil {
		t.Errorf("first turn %v, first answer %v", first, fa)
	}
	if !reflect.DeepEqual(second["noAnswerReason"], noAnswer["noAnswerReason"]) || second["answer"] != "" || len(second["citations"].([]any)) != 0 {
		t.Errorf("second turn %v, its answer %v", second, noAnswer)
	}
	for i, q := range []string{"How do I configure agent memory?", "What is the payroll schedule for contractors?"} {
		turn := turns[i].(map[string]any)
		if at, err := time.Parse(time.RFC3339Nano, turn["at"].(string)); err != nil || at.IsZero() {
			t.Errorf("turn %d time %v", i, turn["at"])
		}
		switch {
		case clear && (turn["question"] != q || turn["questionSha256"] != nil):
			t.Errorf("log_questions: turn %d question %v / %v", i, turn["question"], turn["questionSha256"])
		case !clear && (turn["question"] != nil || turn["questionSha256"] != sha(q)):
			t.Errorf("questions hashed: turn %d question %v / %v", i, turn["question"], turn["questionSha256"])
		}
	}
}

// TestSessionHistory (issue 24 point 3): the owner with the session token
// reads the session back; anyone else, or the owner without the token, is
// 403 session_forbidden; questions follow log_questions.
func TestSessionHistory(t *testing.T) {
	for _, clear := range []bool{false, true} {
		name, extra := "questions hashed", ""
		if clear {
			name, extra = "log_questions", "log_questions"
		}
		t.Run(name, func(t *testing.T) {
			g := startGate(t, gateOptions{extraOptions: extra})
			owner := bearer(agentToken(t, "kunora-coding-agent"))
			created, noAnswer := historySession(t, g, owner)
			id, token := created["sessionId"].(string), created["sessionToken"].(string)
			r := g.getSession(id, withSession(owner, token))
			if r.Status != 200 {
				t.Fatalf("owner's history: %d %s", r.Status, r.Body)
			}
			checkHistory(t, r.json(t), created, noAnswer, clear)

			other := bearer(agentToken(t, "docs-maintainer-agent"))
			for who, h := range map[string]map[string]string{
				"another agent with the token": withSession(other, token),
				"anonymous with the token":     {"X-Session-Token": token},
				"the owner without the token":  owner,
				"the owner with another token": withSession(owner, "x"+token[1:]),
			} {
				if r := g.getSession(id, h); r.Status != 403 || r.errorCode(t) != "session_forbidden" {
					t.Errorf("%s: %d %s", who, r.Status, r.Body)
				}
			}
			if r := g.getSession("0123456789abcdef0123456789abcdef", withSession(owner, token)); r.Status != 403 || r.errorCode(t) != "session_forbidden" {
				t.Errorf("unknown session: %d %s", r.Status, r.Body)
			}
			if r := g.post("/answer/sessions/"+id, withSession(owner, token), `{}`); r.Status != 405 || r.errorCode(t) != "method_not_allowed" {
				t.Errorf("POST on the history: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestSessionHistoryOnRedis: a session created and continued through gate
// A is read back through gate B, which knows it only from Redis.
func TestSessionHistoryOnRedis(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	a, b, _ := startRedisGates(t, srv)
	owner := bearer(agentToken(t, "kunora-coding-agent"))
	created, noAnswer := historySession(t, a, owner)
	id, token := created["sessionId"].(string), created["sessionToken"].(string)
	r := b.getSession(id, withSession(owner, token))
	if r.Status != 200 {
		t.Fatalf("history through gate B: %d %s", r.Status, r.Body)
	}
	checkHistory(t, r.json(t), created, noAnswer, false)
	if r := b.getSession(id, withSession(bearer(agentToken(t, "docs-maintainer-agent")), token)); r.Status != 403 || r.errorCode(t) != "session_forbidden" {
		t.Errorf("another agent through gate B: %d %s", r.Status, r.Body)
	}
}
