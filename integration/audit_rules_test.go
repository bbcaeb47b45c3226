package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDenialAuditRecordNamesItsRules: through the gate, a denied call's
// audit record names the rules that decided it (file:line name) and the
// policy revision's digest, and the gate keeps that revision's sources
// for `wikigate policy explain` (docs/security.md,
// Explaining a denial).
func TestDenialAuditRecordNamesItsRules(t *testing.T) {
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	kept := filepath.Join(t.TempDir(), "revisions")
	g := startGate(t, gateOptions{
		globalExtra:  "log audit {\n\t\toutput file " + auditFile + "\n\t\tinclude http.handlers.wikigate.audit\n\t}",
		extraOptions: "policy {\n\t\t\tkeep_revisions 3 " + kept + "\n\t\t}",
	})
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")),
		`{"question":"runbooks","scope":{"projects":["kunora-ops"]}}`)
	if r.Status != 403 {
		t.Fatalf("search outside the grant: %d %s", r.Status, r.Body)
	}
	d, _ := auditRecord(t, auditFile, r.Header.Get("X-Request-Id"))["decision"].(map[string]any)
	rules, _ := d["rules"].([]any)
	var named []string
	for _, x := range rules {
		named = append(named, x.(string))
	}
	joined := strings.Join(named, " | ")
	if !regexp.MustCompile(`scope_checks\.rego:\d+ scope_problems`).MatchString(joined) || !strings.Contains(joined, "decision.rego:") {
		t.Errorf("audit record's decision names rules %q: want the failed scope check and decision.rego's branch", joined)
	}
	rev, _ := d["policy_revision"].(string)
	digest, _ := d["policy_digest"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(digest) || rev == "" || !strings.HasPrefix(digest, rev) {
		t.Errorf("policy_revision %q, policy_digest %q", rev, digest)
	}
	if _, err := os.Stat(filepath.Join(kept, rev, "decision.rego")); err != nil {
		t.Errorf("the served revision's sources are not kept: %v", err)
	}
}
