package policies_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// misspellDisabled is the typo: "disable" where the kill switch is
// "disabled". Before the data schema the policy loaded and the agent kept
// every grant.
func misspellDisabled(id string) func(map[string]any) {
	return func(data map[string]any) {
		a := data["agents"].(map[string]any)[id].(map[string]any)
		delete(a, "disabled")
		a["disable"] = true
	}
}

const disableTypoMessage = `agents["kunora-coding-agent"].disable: unknown member, did you mean "disabled"?`

func TestShippedDataMatchesTheDataSchema(t *testing.T) {
	t.Parallel()
	if err := policies.CheckDir(t.Context(), defaultPolicyDir); err != nil {
		t.Fatalf("shipped policy: %v", err)
	}
}

func TestLoadRefusesMisspeltDisabled(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	editData(t, dir, misspellDisabled("kunora-coding-agent"))
	_, err := policies.New(t.Context(), policies.Options{Dir: dir, SkipTests: true})
	if !errors.Is(err, policies.ErrDataSchema) || !strings.Contains(err.Error(), disableTypoMessage) {
		t.Fatalf("New with the typo: %v\nwant it refused naming %s", err, disableTypoMessage)
	}
}

func TestBuildAndCheckRefuseMisspeltDisabled(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	editData(t, dir, misspellDisabled("kunora-coding-agent"))
	if err := policies.CheckDir(t.Context(), dir); err == nil || !strings.Contains(err.Error(), disableTypoMessage) {
		t.Errorf("CheckDir: %v, want %s", err, disableTypoMessage)
	}
	if _, err := policies.BuildBundle(t.Context(), dir, io.Discard, policies.BuildOptions{}); err == nil || !strings.Contains(err.Error(), disableTypoMessage) {
		t.Errorf("BuildBundle: %v, want %s", err, disableTypoMessage)
	}
}

// A typo reaching a running gate is refused and the old revision, with the
// agent's grants as they were, keeps serving.
func TestReloadRefusesMisspeltDisabledAndKeepsServing(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	engine := newEngine(t, dir)
	before := engine.Revision()
	editData(t, dir, misspellDisabled("kunora-coding-agent"))
	if err := engine.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), disableTypoMessage) {
		t.Fatalf("Reload: %v, want %s", err, disableTypoMessage)
	}
	if engine.Revision() != before || engine.ReloadFailures() != 1 {
		t.Errorf("revision %q failures %d, want %q kept and 1 failure", engine.Revision(), engine.ReloadFailures(), before)
	}
	if d := decideCodingSearch(t, engine); !d.Allow {
		t.Errorf("old revision stopped serving: %s", d.Reason)
	}
}

func TestDataSchemaNamesEachMismatch(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		edit func(map[string]any)
		want []string
	}{
		"grant typo": {func(d map[string]any) {
			g := d["agents"].(map[string]any)["ops-readonly-agent"].(map[string]any)["grants"].(map[string]any)["kunora-ops"].(map[string]any)
			g["working_doc"] = true
		}, []string{`agents["ops-readonly-agent"].grants["kunora-ops"].working_doc: unknown member, did you mean "working_docs"?`}},
		"unknown tool and wrong type": {func(d map[string]any) {
			a := d["agents"].(map[string]any)["ops-readonly-agent"].(map[string]any)
			a["tools"] = []any{"search", "delete_everything"}
			a["disabled"] = "yes"
		}, []string{`agents["ops-readonly-agent"].tools[1]:`, `agents["ops-readonly-agent"].disabled:`}},
		"limits typo": {func(d map[string]any) {
			d["limits"].(map[string]any)["per_minut"] = map[string]any{}
		}, []string{`limits.per_minut: unknown member, did you mean "per_minute"?`}},
		"human role": {func(d map[string]any) {
			d["humans"].(map[string]any)["maintainers_roles"] = []any{"x"}
		}, []string{`humans.maintainers_roles: unknown member, did you mean "maintainer_roles"?`}},
		"catalog status": {func(d map[string]any) {
			v := d["catalog"].(map[string]any)["datasets"].(map[string]any)["kunora-ops"].(map[string]any)["main"].(map[string]any)
			v["aproved"] = []any{"x"}
		}, []string{`catalog.datasets["kunora-ops"]["main"].aproved: unknown member, did you mean "approved"?`}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyPolicyDir(t)
			editData(t, dir, tc.edit)
			err := policies.CheckDir(t.Context(), dir)
			if err == nil {
				t.Fatal("CheckDir accepted the data")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %v\nlacks %s", err, w)
				}
			}
		})
	}
}

// TestLoadRefusesATopLevelTypo: "agent" for "agents" at the top of
// data.json left every agent ungranted and the new grants unread, and
// loaded: the top level is closed now.
func TestLoadRefusesATopLevelTypo(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	editData(t, dir, func(data map[string]any) {
		data["agent"] = data["agents"]
		delete(data, "agents")
	})
	_, err := policies.New(t.Context(), policies.Options{Dir: dir, SkipTests: true})
	const want = `agent: unknown member, did you mean "agents"?`
	if !errors.Is(err, policies.ErrDataSchema) || !strings.Contains(err.Error(), want) {
		t.Fatalf("New with a top-level typo: %v\nwant it refused naming %s", err, want)
	}
	if err := policies.CheckDir(t.Context(), dir); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckDir: %v, want %s", err, want)
	}
}
