package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// toolRoute is one protocol route with a body the gate accepts, so an
// attack that adds one hostile member tests that member alone.
type toolRoute struct {
	name   string
	path   string
	header http.Header
	// members are the JSON members of a valid body, without the braces;
	// first is the member a duplicate-key attack repeats.
	members string
	first   string
}

const kgentPage = "publish/system/components/kunora-kgent/index.md"

// toolRoutes lists every route; the session turn route gets a fresh session
// of the coding agent.
func toolRoutes(ctx context.Context, t *target) ([]toolRoute, error) {
	coding, maintainer := bearer(t.tokens.coding), bearer(t.tokens.maintainer)
	q := `"question":"How do I configure agent memory?"`
	feedback := `"eventType":"qa_no_answer","question":"hostile-client check: what is the payroll schedule?"`
	routes := []toolRoute{
		{"search", "/agent/tools/search", coding, q, q},
		{"get_page", "/agent/tools/get_page", coding, `"path":"` + kgentPage + `"`, `"path":"` + kgentPage + `"`},
		{"ask", "/agent/tools/ask", coding, q, q},
		{"get_context", "/agent/tools/get_context", coding, q + `,"maxTokens":500`, q},
		{"create_feedback", "/agent/tools/create_feedback", coding, feedback, feedback[:len(`"eventType":"qa_no_answer"`)]},
		{"create_improvement_task", "/agent/tools/create_improvement_task", maintainer,
			feedback + `,"title":"hostile-client check"`, feedback[:len(`"eventType":"qa_no_answer"`)]},
		{"answer_ask", "/answer/ask", http.Header{}, q, q},
		{"session_create", "/answer/sessions", coding, q, q},
	}
	sid, stok, err := createSession(ctx, t, coding)
	if err != nil {
		return routes, fmt.Errorf("creating a session for the turn route: %w", err)
	}
	turn := coding.Clone()
	turn.Set("X-Session-Token", stok)
	return append(routes, toolRoute{"session_turn", "/answer/sessions/" + sid + "/turns", turn, q, q}), nil
}

// createSession creates a session for the caller of header (none:
// anonymous) and returns its id and token.
func createSession(ctx context.Context, t *target, header http.Header) (id, token string, err error) {
	r := t.post(ctx, "/answer/sessions", header, []byte(`{}`))
	if r.err != nil || r.status != http.StatusOK {
		return "", "", fmt.Errorf("POST /answer/sessions: %v %s", r, r.body)
	}
	var s struct{ SessionID, SessionToken string }
	if err := json.Unmarshal(r.body, &s); err != nil || s.SessionID == "" || s.SessionToken == "" {
		return "", "", fmt.Errorf("POST /answer/sessions: no sessionId/sessionToken in %s", r.body)
	}
	return s.SessionID, s.SessionToken, nil
}

// body is the route's valid body with extra members appended.
func (rt toolRoute) body(extra string) []byte {
	if extra == "" {
		return []byte("{" + rt.members + "}")
	}
	return []byte("{" + rt.members + "," + extra + "}")
}
