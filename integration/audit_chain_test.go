package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/audit"
)

// TestAuditChainThroughCaddy: audit records written by a running gate
// through `output wikigate_audit_file` carry seq, stream and prev_hash, the
// chain survives a config reload, and `audit verify` (audit.Verify, what
// the command runs) passes on the untouched file and names the line of an
// edited, removed or reordered record.
func TestAuditChainThroughCaddy(t *testing.T) {
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	g := startGate(t, gateOptions{globalExtra: "log audit {\n\t\toutput wikigate_audit_file " + auditFile +
		"\n\t\tinclude http.handlers.wikigate.audit\n\t}"})
	agent := bearer(agentToken(t, "kunora-coding-agent"))
	for i := range 6 {
		if i == 3 {
			g.reload()
		}
		r := g.post("/agent/tools/search", agent, `{"question":"agent memory"}`)
		if r.Status != 200 {
			t.Fatalf("search: %d %s", r.Status, r.Body)
		}
	}
	lines := waitLines(t, auditFile, 7)
	if !strings.Contains(lines[0], `"audit_event":"start"`) {
		t.Fatalf("the stream does not begin with its start record: %s", lines[0])
	}
	for i, l := range lines[1:] {
		if !strings.Contains(l, `"logger":"http.handlers.wikigate.audit"`) || !strings.Contains(l, `"prev_hash":"`) {
			t.Fatalf("line %d is not a chained audit record: %s", i+2, l)
		}
	}
	// The gate is running: its stream is open (no close record yet).
	if rep := verifyLines(t, lines); len(rep.Problems) != 0 || rep.Records != 7 || len(rep.Heads) != 1 || len(rep.Ends) != 1 || rep.Ends[0].State != audit.EndOpen {
		t.Fatalf("untouched log (one stream across the reload): %+v", rep)
	}

	edited := append([]string(nil), lines...)
	edited[2] = strings.Replace(edited[2], `"result":"ok"`, `"result":"forbidden_scope"`, 1)
	if edited[2] == lines[2] {
		t.Fatalf("record has no result ok: %s", lines[2])
	}
	removed := append(append([]string(nil), lines[:3]...), lines[4:]...)
	reordered := append([]string(nil), lines...)
	reordered[4], reordered[5] = reordered[5], reordered[4]
	for name, c := range map[string]struct {
		lines      []string
		want, what string
	}{
		"edited":    {edited, "audit.log:3: ", "record edited"},
		"removed":   {removed, "audit.log:4: stream ", "record removed"},
		"reordered": {reordered, "audit.log:6: stream ", "records reordered"},
	} {
		rep := verifyLines(t, c.lines)
		if len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0].String(), c.want) || !strings.Contains(rep.Problems[0].Msg, c.what) {
			t.Errorf("%s: problems %v, want one at %q saying %q", name, rep.Problems, c.want, c.what)
		}
	}
}

func waitLines(t *testing.T, file string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		raw, _ := os.ReadFile(file)
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		if len(raw) > 0 && len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit log has %d lines, want %d", len(lines), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func verifyLines(t *testing.T, lines []string) audit.Report {
	t.Helper()
	rep, err := audit.VerifyAnchored(nil, audit.Input{Name: "audit.log", R: strings.NewReader(strings.Join(lines, "\n") + "\n")})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
