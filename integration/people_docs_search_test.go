package integration

import (
	"strings"
	"testing"
)

// docsRecords returns the hits of a search of the docs-scraper view,
// asserting each is a record of a public approved main page: docs-scraper's
// fields, the project as hierarchy_lvl0, a page title as hierarchy_lvl1,
// and a url on the docs site that ends with the record's anchor.
func docsRecords(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	hits, ok := res["hits"].([]any)
	if !ok {
		t.Fatalf("no hits: %v", res)
	}
	var out []map[string]any
	for _, h := range hits {
		rec := h.(map[string]any)
		project, _ := rec["hierarchy_lvl0"].(string)
		url, _ := rec["url"].(string)
		if rec["status"] != "approved" || rec["version"] != "main" || !publicProjects[project] || rec["hierarchy_lvl1"] == nil ||
			!strings.HasPrefix(url, "/") || rec["type"] == nil || rec["objectID"] == nil {
			t.Fatalf("not a public docs-scraper record: %v", rec)
		}
		for _, field := range []string{"hierarchy_lvl6", "hierarchy_radio_lvl0", "content", "anchor", "url_without_anchor"} {
			if _, present := rec[field]; !present {
				t.Fatalf("no %s: %v", field, rec)
			}
		}
		if anchor, _ := rec["anchor"].(string); anchor != "" && !strings.HasSuffix(url, "#"+anchor) {
			t.Fatalf("url %s does not name anchor %s", url, anchor)
		}
		out = append(out, rec)
	}
	return out
}

// The docs-scraper view of the Meilisearch-compatible routes
// (wiki_pages-docs) on the development backends: a section is found by
// its heading, with the page title above it and the section's anchor in
// the url; highlighting and cropping come in _formatted; the parameters
// current clients send (matchingStrategy, showRankingScore,
// rankingScoreThreshold) are accepted by the gate and the backend; a
// client filter that tries to widen finds nothing, and a working draft's
// heading is not there; sort is refused in Meilisearch's shape.
func TestPeopleDocsScraperView(t *testing.T) {
	g := startGate(t, gateOptions{})
	const docs = "/answer/meilisearch/indexes/wiki_pages-docs/search"
	r := g.post(docs, nil, `{"q":"pod memory limits","limit":5,"attributesToHighlight":["*"],"attributesToCrop":["content"],"cropLength":12,
		"matchingStrategy":"last","showRankingScore":true,"rankingScoreThreshold":0.01}`)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	recs := docsRecords(t, r.json(t))
	var section map[string]any
	for _, rec := range recs {
		if rec["hierarchy_lvl2"] == "Pod memory limits" {
			section = rec
		}
		if _, ok := rec["_rankingScore"].(float64); !ok {
			t.Fatalf("no _rankingScore: %v", rec)
		}
	}
	if section == nil {
		t.Fatalf("no record of the section 'Pod memory limits': %s", r.Body)
	}
	if section["hierarchy_lvl1"] != "Deploying kunora-kgent" || section["anchor"] != "pod-memory-limits" || section["type"] != "content" ||
		!strings.HasSuffix(section["url"].(string), "/deployment#pod-memory-limits") || !strings.Contains(section["content"].(string), "50 MiB per concurrent turn") {
		t.Fatalf("section record: %v", section)
	}
	f := section["_formatted"].(map[string]any)
	if f["hierarchy_lvl2"] != "<em>Pod</em> <em>memory</em> <em>limits</em>" || !strings.Contains(f["content"].(string), "<em>memory</em>") ||
		len(strings.Fields(f["content"].(string))) > 12 {
		t.Fatalf("_formatted: %v", f)
	}

	for _, body := range []string{
		`{"q":"long-term recall"}`,
		`{"q":"long-term recall","filter":"status = working"}`,
		`{"q":"long-term recall","filter":["status = working OR project = kunora-kgent"]}`,
	} {
		for _, rec := range docsRecords(t, g.post(docs, nil, body).json(t)) {
			if strings.Contains(rec["url"].(string), "agent-memory-v2") {
				t.Fatalf("%s: the working draft: %v", body, rec)
			}
		}
	}
	multi := g.post("/answer/meilisearch/multi-search", nil,
		`{"queries":[{"indexUid":"wiki_pages-docs","q":"pod memory"},{"indexUid":"wiki_pages","q":"pod memory","sort":[]}]}`)
	if results, _ := multi.json(t)["results"].([]any); multi.Status != 200 || len(results) != 2 ||
		len(docsRecords(t, results[0].(map[string]any))) == 0 || len(meiliHits(t, results[1].(map[string]any))) == 0 {
		t.Fatalf("multi-search: %d %s", multi.Status, multi.Body)
	}

	before := g.backendRequests(g.meiliURL, meiliKey)
	meiliError(t, g.post(docs, nil, `{"q":"memory","sort":["hierarchy_lvl1:asc"]}`), 400, "invalid_search_sort")
	meiliError(t, g.post(docs, nil, `{"q":"memory","matchingStrategy":"most"}`), 400, "invalid_search_matching_strategy")
	meiliError(t, g.post(docs, nil, `{"q":"memory","rankingScoreThreshold":2}`), 400, "invalid_search_ranking_score_threshold")
	meiliError(t, g.post("/answer/meilisearch/indexes/wiki_pages-other/search", nil, `{"q":"memory"}`), 404, "index_not_found")
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
		t.Fatalf("refused calls reached Meilisearch (%d new requests)", after-before-1)
	}
}
