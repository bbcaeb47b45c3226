package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editedPolicy copies rego/ and applies one textual edit to file, failing
// the test when the text is not there (the policy changed shape).
func editedPolicy(t *testing.T, file, old, new string) string {
	t.Helper()
	src, _ := filepath.Abs("../rego")
	dir := copyDir(t, src)
	path := filepath.Join(dir, file)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), old) {
		t.Fatalf("%s no longer contains %q; update this test", file, old)
	}
	writeFile(t, path, strings.Replace(string(raw), old, new, 1))
	return dir
}

// TestGateDeniesAWriteThePolicyDidNotPermit: a policy edit that allows a
// write tool but says write: false must not store anything.
func TestGateDeniesAWriteThePolicyDidNotPermit(t *testing.T) {
	dir := editedPolicy(t, "decision.rego", `"write": may_write,`, `"write": false,`)
	g := startGate(t, gateOptions{policyDir: dir})
	r := g.post("/agent/tools/create_feedback", bearer(agentToken(t, "kunora-coding-agent")),
		`{"eventType":"qa_no_answer","question":"What is the payroll schedule?"}`)
	if r.Status != 403 || r.errorCode(t) != "forbidden_tool" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
}

// TestGateKeepsTurnsInsideTheSession: a policy edit that forgets the
// session check must not let a turn widen the session's scope.
func TestGateKeepsTurnsInsideTheSession(t *testing.T) {
	dir := editedPolicy(t, "scope_checks.rego", "\ton_session\n\toutside_session\n}", "\tfalse\n}")
	g := startGate(t, gateOptions{policyDir: dir})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/answer/sessions", coding, `{"scope":{"paths":["`+kgentPath+`/guides"]}}`)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	id, token := body["sessionId"].(string), body["sessionToken"].(string)
	wider := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token),
		`{"question":"agent memory","scope":{"paths":["`+kgentPath+`"]}}`)
	if wider.Status != 403 || wider.errorCode(t) != "forbidden_scope" {
		t.Fatalf("a turn wider than its session: %d %s", wider.Status, wider.Body)
	}
	inside := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"How do I configure agent memory?"}`)
	if inside.Status != 200 {
		t.Fatalf("a turn inside its session: %d %s", inside.Status, inside.Body)
	}
}
