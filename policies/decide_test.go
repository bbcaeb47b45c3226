package policies_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

type decideCase struct {
	name         string
	in           policies.Input
	wantCode     protocol.Code // "" means allow
	wantScope    *protocol.Scope
	wantDatasets []string
	wantWrite    bool
	wantPages    []string // get_page pages the decision lets through
}

func defaultPolicyCases() []decideCase {
	maintainer := policies.Caller{Type: "human", ID: "alice", Roles: []string{"wiki-maintainer"}, Credential: "sso"}
	withPages := agentCall("kunora-coding-agent", "get_page", nil)
	withPages.Pages = []string{kgent + "/index.md", gateway + "/index.md"}
	outsidePages := agentCall("kunora-coding-agent", "get_page", nil)
	outsidePages.Pages = []string{gateway + "/index.md"}
	onPage := humanAsk("public-read", anonymousHuman, nil)
	onPage.Page = &policies.Page{Path: kgent + "/guides/memory.md"}
	onVersionedPage := humanAsk("public-read", anonymousHuman, nil)
	onVersionedPage.Page = &policies.Page{Path: kgent + "/index.md", URL: "/v1.0/system/components/kunora-kgent/", Version: "v1.0"}
	turn := agentCall("docs-maintainer-agent", "ask", scope(nil, []string{gateway}, ""))
	turn.Session = &policies.SessionInput{Scope: *scope([]string{"kunora-kgent"}, []string{kgent}, "main")}
	working := scope([]string{"kunora-kgent"}, []string{kgent}, "main")
	working.IncludeWorkingDocs = true

	return []decideCase{
		{
			name:         "missing scope is the agent's full grant",
			in:           agentCall("kunora-coding-agent", "search", nil),
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgent}, "main"),
			wantDatasets: []string{kgentMainApproved},
		},
		{
			name:     "sibling path sharing a prefix is not granted",
			in:       agentCall("kunora-coding-agent", "ask", scope([]string{"kunora-kgent"}, []string{kgentExtras}, "main")),
			wantCode: protocol.CodeForbiddenScope,
		},
		{
			name:         "sibling path granted explicitly",
			in:           agentCall("docs-maintainer-agent", "ask", scope([]string{"kunora-kgent"}, []string{kgentExtras}, "")),
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgentExtras}, "main"),
			wantDatasets: []string{kgentMainApproved},
		},
		{
			name:         "projects and version from the grant for a requested path",
			in:           agentCall("ops-readonly-agent", "search", scope(nil, []string{"publish/operations/runbooks"}, "v1.0")),
			wantScope:    scope([]string{"kunora-ops"}, []string{"publish/operations/runbooks"}, "v1.0"),
			wantDatasets: []string{opsV1Approved},
		},
		{name: "unknown agent", in: agentCall("stranger", "search", nil), wantCode: protocol.CodeUnauthorized},
		{name: "tool not granted", in: agentCall("ops-readonly-agent", "ask", nil), wantCode: protocol.CodeForbiddenTool},
		{name: "write tool not granted", in: agentCall("kunora-coding-agent", "create_improvement_task", nil), wantCode: protocol.CodeForbiddenTool},
		{
			name:         "granted write",
			in:           agentCall("kunora-coding-agent", "create_feedback", nil),
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgent}, "main"),
			wantDatasets: []string{kgentMainApproved},
			wantWrite:    true,
		},
		{name: "version not granted", in: agentCall("kunora-coding-agent", "ask", scope(nil, nil, "v1.0")), wantCode: protocol.CodeForbiddenScope},
		{name: "working docs not granted", in: agentCall("kunora-coding-agent", "ask", working), wantCode: protocol.CodeForbiddenScope},
		{
			name:         "working docs granted",
			in:           agentCall("docs-maintainer-agent", "ask", working),
			wantScope:    working,
			wantDatasets: []string{kgentMainWorking, kgentMainApproved},
		},
		{
			name:         "batch with a page outside the scope reads the others",
			in:           withPages,
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgent}, "main"),
			wantDatasets: []string{kgentMainApproved},
			wantPages:    []string{kgent + "/index.md"},
		},
		{name: "every page outside the scope", in: outsidePages, wantCode: protocol.CodeForbiddenScope},
		{name: "session turn outside the session", in: turn, wantCode: protocol.CodeForbiddenScope},
		{name: "anonymous human on an authenticated site", in: humanAsk("authenticated-read", anonymousHuman, nil), wantCode: protocol.CodeUnauthorized},
		{
			name:         "human page default",
			in:           onPage,
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgent + "/guides"}, "main"),
			wantDatasets: []string{kgentMainApproved},
		},
		{
			name:         "human on a versioned page asks about that version",
			in:           onVersionedPage,
			wantScope:    scope([]string{"kunora-kgent"}, []string{kgent}, "v1.0"),
			wantDatasets: []string{kgentV1Approved},
		},
		{name: "human without maintainer role asks for working docs", in: humanAsk("public-read", anonymousHuman, working), wantCode: protocol.CodeForbiddenScope},
		{
			name:         "maintainer asks for working docs",
			in:           humanAsk("authenticated-read", maintainer, working),
			wantScope:    working,
			wantDatasets: []string{kgentMainWorking, kgentMainApproved},
		},
	}
}

func TestDecideDefaultPolicy(t *testing.T) {
	t.Parallel()
	engine := newEngine(t, defaultPolicyDir)
	for _, tc := range defaultPolicyCases() {
		t.Run(tc.name, func(t *testing.T) {
			d, err := engine.Decide(t.Context(), tc.in)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if d.Revision != engine.Revision() {
				t.Errorf("Revision = %q, want %q", d.Revision, engine.Revision())
			}
			if tc.wantCode != "" {
				checkDenied(t, d, tc.wantCode)
				return
			}
			checkAllowed(t, d, tc)
		})
	}
}

func checkDenied(t *testing.T, d policies.Decision, want protocol.Code) {
	t.Helper()
	if d.Allow || d.Code != want {
		t.Fatalf("got allow=%v code=%q (%s), want deny %q", d.Allow, d.Code, d.Reason, want)
	}
	if d.Reason == "" {
		t.Error("deny without a reason")
	}
	if len(d.Datasets) != 0 || d.Write {
		t.Errorf("deny carries datasets %v / write %v", d.Datasets, d.Write)
	}
	// Reasons name what the caller asked for, never who else holds a grant.
	for _, agent := range []string{"kunora-coding-agent", "docs-maintainer-agent", "ops-readonly-agent"} {
		if strings.Contains(d.Reason, agent) {
			t.Errorf("reason %q names agent %q", d.Reason, agent)
		}
	}
}

func checkAllowed(t *testing.T, d policies.Decision, tc decideCase) {
	t.Helper()
	if !d.Allow {
		t.Fatalf("denied %q: %s", d.Code, d.Reason)
	}
	if !scopesEqual(d.Scope, *tc.wantScope) {
		t.Errorf("Scope = %+v, want %+v", d.Scope, *tc.wantScope)
	}
	if got := datasetIDs(d); !slices.Equal(sorted(got), sorted(tc.wantDatasets)) {
		t.Errorf("datasets = %v, want %v", got, tc.wantDatasets)
	}
	if d.Index != "wiki_pages" {
		t.Errorf("Index = %q, want wiki_pages", d.Index)
	}
	if !slices.Equal(d.Pages, tc.wantPages) {
		t.Errorf("Pages = %v, want %v", d.Pages, tc.wantPages)
	}
	if d.Write != tc.wantWrite {
		t.Errorf("Write = %v, want %v", d.Write, tc.wantWrite)
	}
	if !slices.Equal(d.Scope.Datasets, datasetIDs(d)) {
		t.Errorf("Scope.Datasets = %v, want the decision's dataset ids %v", d.Scope.Datasets, datasetIDs(d))
	}
	for _, p := range d.Scope.Projects {
		if len(d.Scope.ProjectPaths[p]) == 0 {
			t.Errorf("Scope.ProjectPaths = %v gives project %q no path", d.Scope.ProjectPaths, p)
		}
	}
}

// TestDecideKeepsEachProjectOnItsOwnPaths is the review's leak: kunora-kgent
// granted only on its guides, kunora-gateway on the whole components
// directory. The flat scope covers kunora-kgent's internal pages through
// kunora-gateway's path; ProjectPaths does not.
func TestDecideKeepsEachProjectOnItsOwnPaths(t *testing.T) {
	t.Parallel()
	const components = "publish/system/components"
	dir := copyPolicyDir(t)
	editData(t, dir, func(data map[string]any) {
		agent := data["agents"].(map[string]any)["kunora-coding-agent"].(map[string]any)
		agent["grants"] = map[string]any{
			"kunora-kgent":   map[string]any{"paths": []string{kgent + "/guides"}, "versions": []string{"main"}},
			"kunora-gateway": map[string]any{"paths": []string{components}, "versions": []string{"main"}},
		}
	})
	engine := newEngine(t, dir)
	want := map[string][]string{"kunora-gateway": {components}, "kunora-kgent": {kgent + "/guides"}}
	for _, requested := range []*protocol.Scope{nil, scope([]string{"kunora-kgent", "kunora-gateway"}, nil, "")} {
		d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search", requested))
		if err != nil || !d.Allow {
			t.Fatalf("Decide(%+v) = %+v, %v; want an allow", requested, d, err)
		}
		if !reflect.DeepEqual(d.Scope.ProjectPaths, want) {
			t.Errorf("Decide(%+v): ProjectPaths = %v, want %v", requested, d.Scope.ProjectPaths, want)
		}
	}
	d, err := engine.Decide(t.Context(), agentCall("kunora-coding-agent", "search",
		scope([]string{"kunora-kgent", "kunora-gateway"}, []string{kgent + "/internal"}, "")))
	if err != nil {
		t.Fatal(err)
	}
	checkDenied(t, d, protocol.CodeForbiddenScope)
}

func scopesEqual(a, b protocol.Scope) bool {
	return slices.Equal(a.Projects, b.Projects) && slices.Equal(a.Paths, b.Paths) &&
		a.Version == b.Version && a.IncludeWorkingDocs == b.IncludeWorkingDocs
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestDecideWriteToolsEnableFeedback(t *testing.T) {
	t.Parallel()
	engine := newEngine(t, defaultPolicyDir)
	d, err := engine.Decide(t.Context(), humanAsk("public-read", anonymousHuman, nil))
	if err != nil {
		t.Fatal(err)
	}
	if d.Write || !slices.Equal(d.WriteTools, []string{"create_feedback"}) {
		t.Errorf("Write=%v WriteTools=%v, want false [create_feedback]", d.Write, d.WriteTools)
	}
}

func TestDecideDatasetNotAllowed(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	editData(t, dir, func(data map[string]any) {
		// catalog.datasets is indexed project → version → status → ids.
		ops := data["catalog"].(map[string]any)["datasets"].(map[string]any)["kunora-ops"].(map[string]any)
		delete(ops["v1.0"].(map[string]any), "approved")
	})
	engine := newEngine(t, dir)
	d, err := engine.Decide(t.Context(), agentCall("ops-readonly-agent", "search", scope(nil, nil, "v1.0")))
	if err != nil {
		t.Fatal(err)
	}
	checkDenied(t, d, protocol.CodeDatasetNotAllowed)
}
