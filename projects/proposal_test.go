package projects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/sitemap"
)

// A new docs tree (the Caddy docs, mapped under "caddy") against the
// shipped policy data: the proposal adds the project's datasets, its
// public root and the public path that root needs, and leaves everything
// the data already says alone.
func TestProposeANewProject(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "rego", "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := sitemap.Parse([]byte("pathPrefix: caddy\nprojects: [{id: caddy, path: ''}]\n"), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat := &Catalog{Index: "wiki_pages", Datasets: map[string]map[string]map[string][]string{
		"caddy": {"main": {"approved": {"ds1"}}},
	}}
	p, err := Propose(data, m, []Page{{"caddy", "main"}, {"caddy", "main"}}, cat)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p.Patch)
	want := `{"catalog":{"datasets":{"caddy":{"main":{"approved":["ds1"]}}}},"humans":{"public":{"paths":["publish","caddy"],` +
		`"projects":[{"id":"kunora-kgent","root":"publish/system/components/kunora-kgent"},{"id":"kunora-gateway","root":"publish/system/components/kunora-gateway"},{"id":"kunora-ops","root":"publish/operations"},{"id":"caddy","root":"caddy"}]}}}`
	if string(raw) != want {
		t.Fatalf("patch:\n%s\nwant\n%s", raw, want)
	}
	if len(p.Changes) != 3 || !strings.Contains(strings.Join(p.Changes, "\n"), "add caddy (root caddy)") {
		t.Fatalf("changes: %q", p.Changes)
	}

	// Proposed twice after the patch was applied: nothing left to propose.
	var merged map[string]any
	_ = json.Unmarshal(data, &merged)
	mergePatch(merged, p.Patch)
	applied, _ := json.Marshal(merged)
	again, err := Propose(applied, m, []Page{{"caddy", "main"}}, cat)
	if err != nil || len(again.Changes) != 0 {
		t.Fatalf("after applying: %v %q", err, again.Changes)
	}
}

// Policy data with an empty default scope gets the tree's projects as its
// default (a question asked on no page would otherwise have no scope).
func TestProposeADefaultScopeWhenEmpty(t *testing.T) {
	data := []byte(`{"humans":{"public":{"projects":[],"paths":["docs"],"versions":["main"]},"default_scope":{"projects":[]}},"catalog":{"datasets":{}}}`)
	m, _ := sitemap.Parse([]byte("pathPrefix: docs\nprojects: [{id: a, path: a}, {id: b, path: b}]\n"), "m.yaml")
	p, err := Propose(data, m, []Page{{"b", "main"}, {"a", "1.0"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	humans := p.Patch["humans"].(map[string]any)
	if got := humans["default_scope"].(map[string]any)["projects"]; !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("default scope: %v", got)
	}
	if got := humans["public"].(map[string]any)["versions"]; !reflect.DeepEqual(got, []string{"main", "1.0"}) {
		t.Fatalf("versions: %v", got)
	}
	if _, ok := p.Patch["catalog"]; ok {
		t.Fatal("no catalog given, yet datasets were proposed")
	}
}

// mergePatch applies an RFC 7386 patch without deletions, as jq's * does.
func mergePatch(dst, patch map[string]any) {
	for k, v := range patch {
		if pv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				mergePatch(dv, pv)
				continue
			}
		}
		raw, _ := json.Marshal(v)
		var plain any
		_ = json.Unmarshal(raw, &plain)
		dst[k] = plain
	}
}
