package gateway

import (
	"reflect"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// The values a facet search offers: those starting with the typed prefix
// (case-folded), counted, and allowed by the scope, alphabetically. A
// reader who may see working docs is offered "working"; one who may not is
// not, even when the backend counted it.
func TestFacetHitsInScope(t *testing.T) {
	dist := map[string]int{"working": 2, "approved": 5, "Archived": 1, "empty": 0}
	public := protocol.Scope{Projects: []string{"kunora-kgent"}, Version: "main"}
	allowed := func(eff protocol.Scope) func(string) bool {
		return func(v string) bool { return facetValueInScope("status", v, eff) }
	}
	if got := facetHits(dist, "", allowed(public)); !reflect.DeepEqual(got, []meiliFacetHit{{"approved", 5}}) {
		t.Fatalf("public reader: %v", got)
	}
	if got := facetHits(dist, "W", allowed(public)); len(got) != 0 {
		t.Fatalf("public reader typing W: %v", got)
	}
	maintainer := public
	maintainer.IncludeWorkingDocs = true
	if got := facetHits(dist, " ", allowed(maintainer)); !reflect.DeepEqual(got, []meiliFacetHit{{"approved", 5}, {"working", 2}}) {
		t.Fatalf("reader with working docs: %v", got)
	}
	versions := map[string]int{"main": 3, "v1.0": 2}
	got := facetHits(versions, "", func(v string) bool { return facetValueInScope("version", v, public) })
	if !reflect.DeepEqual(got, []meiliFacetHit{{"main", 3}}) {
		t.Fatalf("versions: %v", got)
	}
	projects := map[string]int{"kunora-kgent": 3, "kunora-secret": 2}
	got = facetHits(projects, "kunora", func(v string) bool { return facetValueInScope("project", v, public) })
	if !reflect.DeepEqual(got, []meiliFacetHit{{"kunora-kgent", 3}}) {
		t.Fatalf("projects: %v", got)
	}
	if facetValueInScope("path", "publish", public) {
		t.Fatal("a facet the routes do not offer is allowed")
	}
}
