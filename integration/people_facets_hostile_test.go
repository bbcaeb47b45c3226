package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// hostileHits are the documents a lying Meilisearch returns whatever the
// filter: one page every caller here may see, and pages of a working
// draft, another project (public, not in the coding agent's grant),
// another version and a path outside every grant.
var hostileHits = []string{
	hostileHit("in", kgentPath+"/memory.md", "kunora-kgent", "main", "approved"),
	hostileHit("working", kgentPath+"/design/memory-v2.md", "kunora-kgent", "main", "working"),
	hostileHit("gateway", "publish/system/components/kunora-gateway/memory.md", "kunora-gateway", "main", "approved"),
	hostileHit("old", kgentPath+"/memory.md", "kunora-kgent", "v1.0", "approved"),
	hostileHit("extras", "publish/system/components/kunora-kgent-extras/memory.md", "kunora-kgent", "main", "approved"),
}

func hostileHit(id, path, project, version, status string) string {
	return fmt.Sprintf(`{"id":%q,"path":%q,"url":"/x","title":"T %s","project":%q,"version":%q,"status":%q,"content":"memory"}`,
		id, path, id, project, version, status)
}

// hostileFacets are the lying backend's facet counts: hidden values (a
// working status, a hidden project, another version, markup, a facet
// nobody asked for), a case variant of an allowed value, and counts of
// allowed values far above what the scope holds; hostileStats plants
// numbers the gate's facets do not have.
const (
	hostileTotal  = 60
	hostileFacets = `{"status":{"approved":40,"working":6,"<img src=x onerror=alert(1)>":3},` +
		`"project":{"kunora-kgent":30,"KUNORA-KGENT":4,"kunora-gateway":12,"kunora-secret":9},` +
		`"version":{"main":40,"v1.0":7},"pathPrefixes":{"publish/secret":5}}`
	hostileStats = `{"status":{"min":1,"max":6},"secretScore":{"min":1,"max":99}}`
)

// hostileMeili is a Meilisearch stand-in that ignores the gate's filter:
// it answers every search with the first hostileHits (as many as the
// request's limit or hitsPerPage asks, 20 by default), estimatedTotalHits
// or totalHits of hostileTotal, and the hostile facets. It counts searches.
func hostileMeili(t *testing.T) (string, *atomic.Int32) {
	var searches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" {
			_, _ = w.Write([]byte(`{"status":"available"}`))
			return
		}
		if r.URL.Path != "/indexes/wiki_pages/search" {
			w.WriteHeader(404)
			return
		}
		searches.Add(1)
		var p struct {
			Limit       *int `json:"limit"`
			HitsPerPage *int `json:"hitsPerPage"`
			Page        *int `json:"page"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		n, totals := 20, fmt.Sprintf(`"limit":20,"offset":0,"estimatedTotalHits":%d`, hostileTotal)
		if p.Limit != nil {
			n = *p.Limit
		}
		if p.HitsPerPage != nil || p.Page != nil {
			n = 20
			if p.HitsPerPage != nil {
				n = *p.HitsPerPage
			}
			totals = fmt.Sprintf(`"hitsPerPage":%d,"page":1,"totalPages":%d,"totalHits":%d`, n, hostileTotal/max(n, 1), hostileTotal)
		}
		hits := hostileHits[:min(n, len(hostileHits))]
		fmt.Fprintf(w, `{"hits":[%s],"query":"memory","processingTimeMs":1,%s,"facetDistribution":%s,"facetStats":%s}`,
			strings.Join(hits, ","), totals, hostileFacets, hostileStats)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &searches
}

// facetCaller is one caller of the test and what its scope admits.
type facetCaller struct {
	name    string
	headers map[string]string
	allowed map[string][]string // facet → values the decided scope admits
	inScope map[string]int      // project → hostileHits the scope holds
}

// facetCounts is how an answer's facet counts must be bounded.
type facetCounts int

const (
	capped   facetCounts = iota // each count at most the answer's total
	counted                     // the in-scope hits' own counts
	complete                    // those, and the total is their number
)

// People's and agents' searches through a lying Meilisearch: the facet
// distribution of search and multi-search holds only values the decided
// scope admits, in its spelling. When the backend answers hidden pages
// (it ignored the filter) or its page holds every match, the counts are
// those of the in-scope hits (and, for every match, the total too);
// otherwise each count is at most the total the answer shows. No
// facetStats of the backend reaches the caller, and a facet outside the
// served attributes is Meilisearch's invalid_search_facets before any
// backend call.
func TestPeopleMeiliFacetsThroughAHostileBackend(t *testing.T) {
	meiliURL, searches := hostileMeili(t)
	g := startGate(t, gateOptions{meiliURL: meiliURL})
	callers := []facetCaller{
		{name: "anonymous reader", allowed: map[string][]string{
			"status": {"approved"}, "project": {"kunora-kgent", "kunora-gateway", "kunora-ops"}, "version": {"main"},
		}, inScope: map[string]int{"kunora-kgent": 1, "kunora-gateway": 1}},
		{name: "kunora-coding-agent", headers: bearer(agentToken(t, "kunora-coding-agent")), allowed: map[string][]string{
			"status": {"approved"}, "project": {"kunora-kgent"}, "version": {"main"},
		}, inScope: map[string]int{"kunora-kgent": 1}},
	}
	const index = "/answer/meilisearch/indexes/wiki_pages/search"
	const facets = `"facets":["status","project","version"]`
	searchCases := []struct {
		body string
		want facetCounts
	}{
		{`{"q":"memory","limit":1,` + facets + `}`, capped},                 // the one page every caller may see
		{`{"q":"memory","limit":5,` + facets + `}`, counted},                // a full page with hidden pages
		{`{"q":"memory","hitsPerPage":5,"page":1,` + facets + `}`, counted}, // the same, page mode
		{`{"q":"memory",` + facets + `}`, complete},                         // 5 hits of 20 asked
	}
	for _, c := range callers {
		for _, sc := range searchCases {
			checkScopedFacets(t, c, "search "+sc.body, g.post(index, c.headers, sc.body), sc.want)
		}
		multi := g.post("/answer/meilisearch/multi-search", c.headers, `{"queries":[`+
			`{"indexUid":"wiki_pages","q":"memory","limit":5,`+facets+`},`+
			`{"indexUid":"wiki_pages","q":"memory",`+facets+`},`+
			`{"indexUid":"wiki_pages","q":"memory","limit":0,"facets":["project"]}]}`)
		results, _ := multi.json(t)["results"].([]any)
		if multi.Status != 200 || len(results) != 3 {
			t.Fatalf("%s: multi-search %d %s", c.name, multi.Status, multi.Body)
		}
		for i, want := range []facetCounts{counted, complete, capped} {
			raw, _ := json.Marshal(results[i])
			checkScopedFacets(t, c, fmt.Sprintf("multi-search query %d", i), response{Status: 200, Body: raw}, want)
		}
		// The facet search offers the same values: the scope's spelling
		// only (no case variant of the backend's), counts capped.
		for _, name := range []string{"status", "project", "version"} {
			for v, n := range facetValuesAs(t, g, c.headers, `{"facetName":"`+name+`","q":"memory"}`) {
				if !slices.Contains(c.allowed[name], v) || n > hostileTotal {
					t.Errorf("%s: facet search offers %s %q counted %v", c.name, name, v, n)
				}
			}
		}
	}

	before := searches.Load()
	meiliError(t, g.post(index, nil, `{"q":"memory","facets":["path"]}`), 400, "invalid_search_facets")
	refused := g.post("/answer/meilisearch/multi-search", nil,
		`{"queries":[{"indexUid":"wiki_pages","q":"memory"},{"indexUid":"wiki_pages","facets":["status","pathPrefixes"]}]}`)
	meiliError(t, refused, 400, "invalid_search_facets")
	if msg := refused.json(t)["message"].(string); !strings.HasPrefix(msg, "Inside `.queries[1]`: ") || !strings.Contains(msg, "`pathPrefixes`") {
		t.Fatalf("the refusal names neither the query nor the attribute: %s", msg)
	}
	if after := searches.Load(); after != before {
		t.Fatalf("refused facets reached Meilisearch (%d searches)", after-before)
	}
}

// checkScopedFacets asserts one search answer of c: facetDistribution has
// only asked facets, each with admitted values only and counts no higher
// than the answer's total; facetStats is empty; the counts (and with
// complete the total) are bounded as want says, c.inScope being the
// in-scope hostileHits.
func checkScopedFacets(t *testing.T, c facetCaller, what string, r response, want facetCounts) {
	t.Helper()
	for _, leak := range []string{"working", "kunora-secret", "v1.0", "KUNORA", "onerror", "pathPrefixes", "secretScore", "publish/secret"} {
		if strings.Contains(string(r.Body), leak) {
			t.Errorf("%s, %s: %q reached the caller: %s", c.name, what, leak, r.Body)
		}
	}
	res := r.json(t)
	if r.Status != 200 {
		t.Fatalf("%s, %s: %d %s", c.name, what, r.Status, r.Body)
	}
	total, ok := res["estimatedTotalHits"].(float64)
	if !ok {
		total, _ = res["totalHits"].(float64)
	}
	if stats, ok := res["facetStats"].(map[string]any); !ok || len(stats) != 0 {
		t.Errorf("%s, %s: facetStats %v, want {}", c.name, what, res["facetStats"])
	}
	dist, _ := res["facetDistribution"].(map[string]any)
	if len(dist) == 0 {
		t.Fatalf("%s, %s: no facetDistribution: %s", c.name, what, r.Body)
	}
	inScope := 0
	for _, n := range c.inScope {
		inScope += n
	}
	if want == complete && total != float64(inScope) {
		t.Errorf("%s, %s: total %v with every match in hand, want the %d in-scope hits", c.name, what, total, inScope)
	}
	for facet, values := range dist {
		allowed, asked := c.allowed[facet]
		if !asked {
			t.Errorf("%s, %s: facet %q was not asked", c.name, what, facet)
		}
		for v, n := range values.(map[string]any) {
			count := n.(float64)
			if !slices.Contains(allowed, v) || count < 1 || count > total {
				t.Errorf("%s, %s: %s %q counted %v (total %v)", c.name, what, facet, v, count, total)
			}
			if n := float64(c.inScope[v]); want != capped && facet == "project" && count != n {
				t.Errorf("%s, %s: project %q counted %v, want %v", c.name, what, v, count, n)
			}
		}
	}
}
