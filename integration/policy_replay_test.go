package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policyreplay"
)

// TestPolicyReplayRecordedDecisions: a gate with policy { decision_log }
// writes OPA decision-log events; replaying them against a candidate that
// removes kunora-coding-agent's get_context reports exactly that agent's
// get_context calls as allow→deny, nothing else, and fails (exit 1).
func TestPolicyReplayRecordedDecisions(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "decisions.log")
	g := startGate(t, gateOptions{
		globalExtra: "log decisions {\n\t\toutput file " + logFile +
			"\n\t\tinclude http.handlers.wikigate.decisions\n\t}",
		extraOptions: "policy {\n\t\t\tdecision_log\n\t\t}",
	})
	kunora, docs := bearer(agentToken(t, "kunora-coding-agent")), bearer(agentToken(t, "docs-maintainer-agent"))
	ctxBody := `{"question":"agent memory","maxTokens":600}`
	var want []string
	for _, c := range []struct {
		hdr        map[string]string
		path, body string
	}{
		{kunora, "/agent/tools/get_context", ctxBody},
		{kunora, "/agent/tools/search", `{"question":"agent memory"}`},
		{docs, "/agent/tools/get_context", ctxBody},
		{kunora, "/agent/tools/get_context", ctxBody},
	} {
		r := g.post(c.path, c.hdr, c.body)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.path, r.Status, r.Body)
		}
		if c.path == "/agent/tools/get_context" && c.hdr["Authorization"] == kunora["Authorization"] {
			want = append(want, r.Header.Get("X-Request-Id"))
		}
	}
	waitLines(t, logFile, 8) // tool gate and decision per call
	raw, _ := os.ReadFile(logFile)
	if bytes.Contains(raw, []byte("agent memory")) {
		t.Error("the decision log holds the question")
	}

	candidate := copyDir(t, g.policyDir)
	removeTool(t, filepath.Join(candidate, "data.json"), "kunora-coding-agent", "get_context")
	var out bytes.Buffer
	err := policyreplay.Run(context.Background(), &out, policyreplay.Options{Log: logFile, Candidate: candidate})
	if !errors.Is(err, policyreplay.ErrFlips) {
		t.Fatalf("replay error %v, want ErrFlips; output:\n%s", err, out.String())
	}
	rep, err := policyreplay.Replay(context.Background(), policyreplay.Options{Log: logFile, Candidate: candidate})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Flips {
		if f.Kind != policyreplay.AllowToDeny || f.Caller != "agent:kunora-coding-agent" || f.Tool != "get_context" {
			t.Errorf("unexpected flip %+v", f)
		}
		got = append(got, f.DecisionID)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("flipped requests %v, want the kunora get_context calls %v", got, want)
	}
	if !strings.Contains(out.String(), "allow→deny") || !strings.Contains(out.String(), "caller=agent:kunora-coding-agent") ||
		!strings.Contains(out.String(), "tool=get_context") {
		t.Errorf("replay output:\n%s", out.String())
	}

	// The unchanged policy replays clean.
	out.Reset()
	if err := policyreplay.Run(context.Background(), &out, policyreplay.Options{Log: logFile, Candidate: g.policyDir}); err != nil {
		t.Errorf("replay against the serving policy: %v\n%s", err, out.String())
	}
}

// removeTool edits a policy data.json: agent loses tool.
func removeTool(t *testing.T, file, agent, tool string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	a := data["agents"].(map[string]any)[agent].(map[string]any)
	a["tools"] = slices.DeleteFunc(a["tools"].([]any), func(v any) bool { return v == tool })
	out, _ := json.Marshal(data)
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
