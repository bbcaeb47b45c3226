package policies_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// lineOf is the 1-based line of rego/<file> that starts with prefix.
func lineOf(t *testing.T, file, prefix string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(defaultPolicyDir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), prefix) {
			return n
		}
	}
	t.Fatalf("%s has no line starting %q", file, prefix)
	return 0
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// A denial names the rules that decided it, file:line and name: the check
// that failed and the branch that chose the code, on either evaluator, and
// the revision's digest. An allow names none.
func TestDenialNamesTheRulesThatDecidedIt(t *testing.T) {
	t.Parallel()
	unknown := policies.Rule{File: "identity.rego", Line: lineOf(t, "identity.rego", `identity_problems contains "unknown agent"`), Name: "identity_problems"}
	outside := policies.Rule{File: "scope_checks.rego", Line: lineOf(t, "scope_checks.rego", `scope_problems contains sprintf("project %q is not in your grant"`), Name: "scope_problems"}
	for _, ev := range []string{policies.EvaluatorTopdown, policies.EvaluatorWasm} {
		e, err := policies.New(context.Background(), policies.Options{Dir: defaultPolicyDir, SkipTests: true, Evaluator: ev, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			in   policies.Input
			want policies.Rule
			code protocol.Code
		}{
			{agentCall("no-such-agent", "search", nil), unknown, protocol.CodeUnauthorized},
			{agentCall("kunora-coding-agent", "search", &protocol.Scope{Projects: []string{"kunora-ops"}}), outside, protocol.CodeForbiddenScope},
		} {
			d, err := e.Decide(context.Background(), c.in)
			if err != nil || d.Allow || d.Code != c.code {
				t.Fatalf("%s: %+v, %v; want a %s denial", ev, d, err, c.code)
			}
			if !slices.Contains(d.Rules, c.want) || !slices.ContainsFunc(d.Rules, func(r policies.Rule) bool { return r.File == "decision.rego" && r.Name == "denial" }) {
				t.Errorf("%s: %s denial names %v, want %s and decision.rego's denial branch", ev, c.code, d.Rules, c.want)
			}
			if !sha256Hex.MatchString(d.Digest) || !strings.HasPrefix(d.Digest, d.Revision) {
				t.Errorf("%s: digest %q for revision %s", ev, d.Digest, d.Revision)
			}
		}
		d, err := e.Decide(context.Background(), agentCall("kunora-coding-agent", "search", nil))
		if err != nil || !d.Allow || len(d.Rules) != 0 {
			t.Errorf("%s: allow %+v names rules %v", ev, d, d.Rules)
		}
	}
}

// The decision log's result is the policy's own value: the tool gate's
// allow carries no scope the policy did not write, an allow keeps write
// false and an empty pages list, and a denial names its rules beside it.
func TestDecisionLogResultIsWhatThePolicyReturned(t *testing.T) {
	t.Parallel()
	e, logs := decisionLogEngine(t, policies.DecisionLogOptions{})
	ctx := policies.WithDecisionID(context.Background(), "req-7")
	if _, err := e.DecideTool(ctx, agentCall("kunora-coding-agent", "search", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Decide(ctx, agentCall("kunora-coding-agent", "search", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Decide(ctx, agentCall("no-such-agent", "search", nil)); err != nil {
		t.Fatal(err)
	}
	evs := waitEvents(t, logs, 3)
	result := func(i int) map[string]any {
		raw, _ := json.Marshal(evs[i].ContextMap()["result"])
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("event %d result %s: %v", i, raw, err)
		}
		return m
	}
	if tool := result(0); tool["allow"] != true || tool["scope"] != nil {
		t.Errorf("tool gate result %v: want the policy's {allow: true} without a scope", tool)
	}
	allow := result(1)
	if w, ok := allow["write"]; !ok || w != false {
		t.Errorf("allow result %v: want write false as the policy returned it", allow)
	}
	if p, ok := allow["pages"].([]any); !ok || len(p) != 0 {
		t.Errorf("allow result %v: want pages [] as the policy returned it", allow)
	}
	rules, _ := json.Marshal(evs[2].ContextMap()["wikigate_rules"])
	if !strings.Contains(string(rules), "identity.rego:") {
		t.Errorf("denial event rules %s", rules)
	}
}

// The engine keeps the sources of the last KeepRevisions revisions it
// served, each folder loading as that revision, and removes older ones.
func TestEngineKeepsTheLastRevisionsServed(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	kept := t.TempDir()
	e, err := policies.New(context.Background(), policies.Options{Dir: dir, SkipTests: true, Logger: zap.NewNop(), RevisionsDir: kept, KeepRevisions: 2})
	if err != nil {
		t.Fatal(err)
	}
	served := []string{e.Revision()}
	for _, limit := range []float64{7, 8} {
		editData(t, dir, func(data map[string]any) {
			data["limits"].(map[string]any)["per_minute"].(map[string]any)["agents"].(map[string]any)["search"] = limit
		})
		if err := e.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		served = append(served, e.Revision())
	}
	entries, _ := os.ReadDir(kept)
	var names []string
	for _, en := range entries {
		if !strings.HasPrefix(en.Name(), ".") {
			names = append(names, en.Name())
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(served[1:]))
	if !slices.Equal(names, want) {
		t.Fatalf("kept %v, want the last two served %v (of %v)", names, want, served)
	}
	for _, rev := range want {
		got, digest, err := policies.FolderRevision(filepath.Join(kept, rev))
		marker, _ := os.ReadFile(filepath.Join(kept, rev, policies.DigestFile))
		if err != nil || got != rev || strings.TrimSpace(string(marker)) != digest {
			t.Errorf("kept %s loads as %s (digest %s, file says %s): %v", rev, got, digest, marker, err)
		}
	}
}
