package integration

import (
	"net/http"
	"strings"
	"testing"
)

const facetSearch = "/answer/meilisearch/indexes/wiki_pages/facet-search"

// directFacets is the facet distribution the development Meilisearch
// holds for q without any scope, as only the gate may ask it.
func directFacets(t *testing.T, g *gate, q, facet string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.meiliURL+"/indexes/wiki_pages/search",
		strings.NewReader(`{"q":"`+q+`","limit":1,"facets":["`+facet+`"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+meiliKey)
	r := g.do(req)
	if r.Status != 200 {
		t.Fatalf("development Meilisearch: %d %s", r.Status, r.Body)
	}
	dist, _ := r.json(t)["facetDistribution"].(map[string]any)
	values, _ := dist[facet].(map[string]any)
	return values
}

// facetValues posts a facet search and returns its values and counts,
// checking Meilisearch's response shape.
func facetValues(t *testing.T, g *gate, body string) map[string]float64 {
	t.Helper()
	return facetValuesAs(t, g, nil, body)
}

// facetValuesAs is facetValues with the caller's headers.
func facetValuesAs(t *testing.T, g *gate, headers map[string]string, body string) map[string]float64 {
	t.Helper()
	r := g.post(facetSearch, headers, body)
	res := r.json(t)
	hits, ok := res["facetHits"].([]any)
	if r.Status != 200 || !ok || res["processingTimeMs"] == nil {
		t.Fatalf("%s: %d %s", body, r.Status, r.Body)
	}
	out := map[string]float64{}
	for _, h := range hits {
		hit := h.(map[string]any)
		out[hit["value"].(string)] = hit["count"].(float64)
	}
	return out
}

// People's facet search (instant-meilisearch's searchForFacetValues): the
// values of an allowed facet among the public approved pages only. The
// backend does hold working pages and non-public projects for these
// queries, yet a facetQuery that would reveal them ("w" for working, the
// start of a hidden project's name) and a client filter that tries to
// widen return nothing of them.
func TestPeopleMeiliFacetSearch(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{})
	held := directFacets(t, g, "memory", "status")
	if held["working"] == nil {
		t.Fatalf("the sample wiki has no working page about memory (%v): the checks below prove nothing", held)
	}
	status := facetValues(t, g, `{"facetName":"status","q":"memory"}`)
	if len(status) != 1 || status["approved"] < 1 {
		t.Fatalf("status values for a public reader: %v", status)
	}
	for _, body := range []string{
		`{"facetName":"status","facetQuery":"w","q":"memory"}`,
		`{"facetName":"status","facetQuery":"WORK","q":"memory","filter":"status = working"}`,
		`{"facetName":"status","facetQuery":"","q":"memory","filter":["status = working"]}`,
		// what instant-meilisearch sends: the search's own parameters too
		`{"facetName":"status","facetQuery":"wor","q":"memory","facets":["status","project"],"attributesToHighlight":["*"],"highlightPreTag":"__ais-highlight__","highlightPostTag":"__/ais-highlight__","limit":21,"offset":0}`,
	} {
		if got := facetValues(t, g, body); len(got) != 0 {
			t.Fatalf("%s reveals %v", body, got)
		}
	}
	if got := facetValues(t, g, `{"facetName":"status","facetQuery":"APP","q":"memory"}`); got["approved"] != status["approved"] {
		t.Fatalf("a case-folded prefix: %v", got)
	}

	// Another version is out of the default scope (main): the backend
	// holds pages of it, a facetQuery naming it finds nothing.
	versions := directFacets(t, g, "", "version")
	other := ""
	for v := range versions {
		if v != "main" {
			other = v
		}
	}
	if other == "" {
		t.Fatalf("the sample wiki has one version only (%v): the check below proves nothing", versions)
	}
	if got := facetValues(t, g, `{"facetName":"version"}`); len(got) != 1 || got["main"] < 1 {
		t.Fatalf("versions offered to a public reader: %v", got)
	}
	if got := facetValues(t, g, `{"facetName":"version","facetQuery":"`+other[:1]+`","filter":"version = '`+other+`'"}`); len(got) != 0 {
		t.Fatalf("facetQuery %q reveals %v", other[:1], got)
	}
	for p := range facetValues(t, g, `{"facetName":"project"}`) {
		if !publicProjects[p] {
			t.Fatalf("project %q offered to a public reader", p)
		}
	}

	before := g.backendRequests(g.meiliURL, meiliKey)
	meiliError(t, g.post(facetSearch, nil, `{"facetQuery":"a"}`), 400, "missing_facet_search_facet_name")
	meiliError(t, g.post(facetSearch, nil, `{"facetName":"path"}`), 400, "invalid_facet_search_facet_name")
	meiliError(t, g.post(facetSearch, nil, `{"facetName":"status","sort":["title:asc"]}`), 400, "invalid_search_sort")
	meiliError(t, g.post("/answer/meilisearch/indexes/secret_pages/facet-search", nil, `{"facetName":"status"}`), 404, "index_not_found")
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 { // +1: the log read itself
		t.Fatalf("refused facet searches reached Meilisearch (%d new requests)", after-before-1)
	}

	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool {
		return l["endpoint"] == "/answer/meilisearch/indexes/{indexUid}/facet-search" && l["result"] == "ok"
	})
	eff, _ := rec["effective_scope"].(map[string]any)
	if rec["tool"] != "search" || rec["credential"] != "anonymous" || eff["version"] != "main" || eff["include_working_docs"] != false {
		t.Fatalf("audit record of a facet search: %v", rec)
	}
}
