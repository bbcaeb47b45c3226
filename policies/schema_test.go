package policies_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/policyschema"
	"github.com/wikigate/wikigate/protocol"
)

// misspell copies the shipped policy and turns its first reference to
// input.scope.paths outside a comment into input.scope.paht.
func misspell(t *testing.T) string {
	t.Helper()
	dir := copyPolicyDirWithTests(t)
	path := filepath.Join(dir, "scope.rego")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`(?m)^([^#\n]*)input\.scope\.paths`)
	loc := code.FindSubmatchIndex(src)
	if loc == nil {
		t.Fatal("scope.rego no longer reads input.scope.paths; pick another field to misspell")
	}
	edited := append(append(bytes.Clone(src[:loc[3]]), "input.scope.paht"...), src[loc[1]:]...)
	writeFile(t, dir, "scope.rego", string(edited))
	return dir
}

const typoError = "rego_type_error: undefined ref: input.scope.paht"

// TestSchemaRefusesATypoAtLoad: a policy that reads a field the gate never
// sends does not start, does not replace a serving policy on reload, and
// is not built into a bundle; each says where and what.
func TestSchemaRefusesATypoAtLoad(t *testing.T) {
	t.Parallel()
	dir := misspell(t)
	_, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.NewNop()})
	if err == nil || !strings.Contains(err.Error(), "scope.rego:") || !strings.Contains(err.Error(), typoError) {
		t.Fatalf("load: %v, want %q with its file", err, typoError)
	}
	if err := policies.CheckDir(context.Background(), dir); err == nil || !strings.Contains(err.Error(), typoError) {
		t.Errorf("CheckDir: %v", err)
	}
	var out bytes.Buffer
	if _, err := policies.BuildBundle(context.Background(), dir, &out, policies.BuildOptions{}); err == nil ||
		!strings.Contains(err.Error(), typoError) || out.Len() != 0 {
		t.Errorf("build: %v (%d bytes written)", err, out.Len())
	}

	live := copyPolicyDirWithTests(t)
	e := newEngine(t, live)
	before := e.Revision()
	typo, _ := os.ReadFile(filepath.Join(dir, "scope.rego"))
	writeFile(t, live, "scope.rego", string(typo))
	if err := e.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), typoError) || e.Revision() != before {
		t.Errorf("reload: %v; revision %s → %s", err, before, e.Revision())
	}
}

// TestSchemaShippedPolicyAndOldFolder: the shipped policy type-checks
// clean; a policy folder that still holds the schemas in schema/ (where
// they were before they moved to policyschema/) is refused with what to do,
// since OPA's tools would load them as data.schema and stop with a merge
// error that names nothing.
func TestSchemaShippedPolicyAndOldFolder(t *testing.T) {
	t.Parallel()
	if err := policies.CheckDir(context.Background(), defaultPolicyDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(defaultPolicyDir, "schema")); err == nil {
		t.Error("rego/schema exists: OPA's tools would load it as data.schema")
	}
	with := copyPolicyDirWithTests(t)
	writeFile(t, with, "schema/input.json", string(policyschema.Input))
	writeFile(t, with, "schema/decision.json", string(policyschema.Decision))
	_, err := policies.New(context.Background(), policies.Options{Dir: with, SkipTests: true})
	if err == nil || !strings.Contains(err.Error(), "no longer part of a policy folder") || !strings.Contains(err.Error(), "delete the folder") {
		t.Errorf("a policy folder with the old schema folder: %v", err)
	}
}

// TestSchemasDescribeRealCalls: inputs the gate builds (tool gate, agent
// calls, a human's question from a page, a session turn, a get_page batch)
// and the decisions the shipped policy returns for them are valid
// instances of input.json and decision.json, checked with OPA's own
// json.match_schema.
func TestSchemasDescribeRealCalls(t *testing.T) {
	t.Parallel()
	e := newEngine(t, defaultPolicyDir)
	full := &protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{kgent}, Version: "main"}
	getPage := agentCall("kunora-coding-agent", "get_page", nil)
	getPage.Pages = []string{kgent + "/memory", "publish/elsewhere"}
	human := humanAsk("public-read", policies.Caller{Type: "human", Anonymous: true, Credential: "anonymous"}, nil)
	human.Page = &policies.Page{Path: kgent + "/memory", URL: "https://docs.example/v1.0/x", Version: "v1.0"}
	turn := agentCall("kunora-coding-agent", "ask", nil)
	turn.Session = &policies.SessionInput{Scope: *full}
	sso := humanAsk("authenticated-read", policies.Caller{Type: "human", ID: "u1", Roles: []string{"staff"}, Credential: "sso"}, full)
	inputs := []policies.Input{agentCall("kunora-coding-agent", "search", full), agentCall("nobody", "search", nil),
		getPage, human, turn, sso, agentCall("kunora-coding-agent", "create_feedback", nil)}
	for i, in := range inputs {
		matchSchema(t, in, policyschema.Input)
		d, err := e.Decide(context.Background(), in)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		matchSchema(t, policies.WireOf(d), policyschema.Decision)
		tool := policies.Input{Endpoint: in.Endpoint, Tool: in.Tool, Action: in.Action, SiteMode: in.SiteMode, Caller: in.Caller}
		matchSchema(t, tool, policyschema.Input)
	}
	// and the schemas are not vacuous: a misspelt field is not an input
	var bad map[string]any
	raw, _ := json.Marshal(inputs[0])
	_ = json.Unmarshal(raw, &bad)
	bad["scope"].(map[string]any)["paht"] = []string{"x"}
	if ok, _ := schemaMatches(t, bad, policyschema.Input); ok {
		t.Error("input.json accepts scope.paht")
	}
	if ok, _ := schemaMatches(t, map[string]any{"allow": true}, policyschema.Decision); ok {
		t.Error("decision.json accepts an allow without scope or datasets")
	}
}

func matchSchema(t *testing.T, doc any, s []byte) {
	t.Helper()
	if ok, why := schemaMatches(t, doc, s); !ok {
		raw, _ := json.Marshal(doc)
		t.Errorf("%s does not match its schema: %v", raw, why)
	}
}

func schemaMatches(t *testing.T, doc any, s []byte) (bool, any) {
	t.Helper()
	raw, _ := json.Marshal(doc)
	var v any
	_ = json.Unmarshal(raw, &v)
	var sdoc any
	_ = json.Unmarshal(s, &sdoc)
	rs, err := rego.New(rego.Query("[ok, why] := json.match_schema(input.doc, input.schema)"),
		rego.Input(map[string]any{"doc": v, "schema": sdoc})).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("json.match_schema: %v %v", err, rs)
	}
	return rs[0].Bindings["ok"] == true, rs[0].Bindings["why"]
}
