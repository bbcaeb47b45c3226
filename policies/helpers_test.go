package policies_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// defaultPolicyDir is the security team's shipped policy; tests exercise it
// as the gateway will.
const defaultPolicyDir = "../rego"

const (
	kgent       = "publish/system/components/kunora-kgent"
	kgentExtras = "publish/system/components/kunora-kgent-extras"
	gateway     = "publish/system/components/kunora-gateway"

	kgentMainApproved = "d092f80af64f8e5e119cee1082c471b4"
	kgentMainWorking  = "32a7ab278e7c1b4897cce0b41a3c415f"
	kgentV1Approved   = "c87a9f460463eb0f13d182441f32c32d"
	opsV1Approved     = "7ba292e5538620e24abf5c88e99dd1f3"
)

func newEngine(t testing.TB, dir string) *policies.Engine {
	t.Helper()
	engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop()})
	if err != nil {
		t.Fatalf("New(%s): %v", dir, err)
	}
	return engine
}

func agentCall(id, tool string, scope *protocol.Scope) policies.Input {
	action := "read"
	if strings.HasPrefix(tool, "create_") {
		action = "write"
	}
	return policies.Input{
		Endpoint: "/agent/tools/" + tool,
		Tool:     tool,
		Action:   action,
		SiteMode: "public-read",
		Caller:   policies.Caller{Type: "agent", ID: id, Credential: "jwt"},
		Scope:    scope,
	}
}

func humanAsk(siteMode string, caller policies.Caller, scope *protocol.Scope) policies.Input {
	return policies.Input{
		Endpoint: "/answer/ask",
		Tool:     "ask",
		Action:   "read",
		SiteMode: siteMode,
		Caller:   caller,
		Scope:    scope,
	}
}

var anonymousHuman = policies.Caller{Type: "human", Anonymous: true, Credential: "anonymous"}

func scope(projects, paths []string, version string) *protocol.Scope {
	return &protocol.Scope{Projects: projects, Paths: paths, Version: version}
}

func datasetIDs(d policies.Decision) []string {
	ids := make([]string, 0, len(d.Datasets))
	for _, ds := range d.Datasets {
		ids = append(ids, ds.ID)
	}
	return ids
}

// copyPolicyDir copies the shipped policy into a temp dir the test may edit.
// copyPolicyDir copies the shipped policy and data without the team's
// *_test.rego: the tests using it edit the data as an operator would (an
// agent disabled, a dataset retired), which the team's own tests, run
// against that data, would refuse. copyPolicyDirWithTests keeps them.
func copyPolicyDir(t testing.TB) string {
	t.Helper()
	dir := copyPolicyDirWithTests(t)
	tests, _ := filepath.Glob(filepath.Join(dir, "*_test.rego"))
	for _, f := range tests {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyPolicyDirWithTests copies the shipped rego/ folder (policy, data and
// tests).
func copyPolicyDirWithTests(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(defaultPolicyDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		if entry.IsDir() || filepath.Ext(entry.Name()) == ".go" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(defaultPolicyDir, entry.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, entry.Name(), string(data))
	}
	return dir
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editData rewrites dir/data.json through edit, as a security engineer
// editing the grants would.
func editData(t testing.TB, dir string, edit func(data map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	edit(data)
	raw, err = json.MarshalIndent(data, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "data.json", string(raw))
}

func disableAgent(id string) func(map[string]any) {
	return func(data map[string]any) {
		agents := data["agents"].(map[string]any)
		agents[id].(map[string]any)["disabled"] = true
	}
}
