package policyreplay

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// maintainerWorkingDocs is a person with the maintainer role asking for
// working docs: allowed, and only because of the role.
var maintainerWorkingDocs = policies.Input{Endpoint: "/answer/search", Tool: "search", Action: "read", SiteMode: "public-read",
	Caller: policies.Caller{Type: "human", ID: "alice", Roles: []string{"wiki-maintainer"}, Credential: "sso"},
	Scope:  &protocol.Scope{Projects: []string{"kunora-kgent"}, IncludeWorkingDocs: true}}

// eventLine is the decision-log line of in as the shipped policy decides
// it, with roles erased when masked (what `mask /input/caller/roles`
// writes).
func eventLine(t *testing.T, id string, in policies.Input, masked bool) string {
	t.Helper()
	e, err := policies.New(context.Background(), policies.Options{Dir: "../rego", SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.Decide(context.Background(), in)
	if err != nil || !d.Allow {
		t.Fatalf("the shipped policy does not allow the maintainer's call: %v %+v", err, d)
	}
	ev := map[string]any{"decision_id": id, "path": policies.PathDecision, "input": in, "result": policies.WireOf(d)}
	if masked {
		in.Caller.Roles = nil
		raw, _ := json.Marshal(in)
		var input map[string]any
		_ = json.Unmarshal(raw, &input)
		delete(input["caller"].(map[string]any), "roles")
		ev["input"], ev["erased"] = input, []string{"/input/caller/roles"}
	}
	line, _ := json.Marshal(ev)
	return string(line) + "\n"
}

// A decision whose input the log masked is not replayed: without the role
// the unchanged policy would deny it, a flip that never happened. The
// report says how many were left out and which paths were erased; a log
// with nothing else is an error, not a clean replay.
func TestReplaySkipsMaskedInputs(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "decisions.log")
	if err := os.WriteFile(log, []byte(eventLine(t, "r1", maintainerWorkingDocs, false)+eventLine(t, "r2", maintainerWorkingDocs, true)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), &out, Options{Log: log, Candidate: "../rego"}); err != nil {
		t.Fatalf("replay of the unchanged policy: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "replayed 1 decisions") ||
		!strings.Contains(out.String(), "not replayed: 1 decisions whose input the log masked (erased /input/caller/roles)") {
		t.Errorf("replay output:\n%s", out.String())
	}
	onlyMasked := filepath.Join(dir, "masked.log")
	if err := os.WriteFile(onlyMasked, []byte(eventLine(t, "r2", maintainerWorkingDocs, true)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(context.Background(), Options{Log: onlyMasked, Candidate: "../rego"}); err == nil || !strings.Contains(err.Error(), "/input/caller/roles") {
		t.Errorf("a log of masked events only: %v", err)
	}
	explained := explain(t, ExplainOptions{RequestID: "r2", Log: onlyMasked})
	if !strings.Contains(explained, "warning: the log erased /input/caller/roles from this input") {
		t.Errorf("explain of a masked event:\n%s", explained)
	}
}
