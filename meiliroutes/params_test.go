package meiliroutes

import (
	"encoding/json"
	"strings"
	"testing"
)

// What current meilisearch-js and instant-meilisearch send beyond the
// first subset: matchingStrategy, showRankingScore and
// rankingScoreThreshold reach the backend and _rankingScore shows on each
// hit (both views, multi-search too); an empty sort is accepted. Refused
// in Meilisearch's shape before any backend call: a sort (the page index
// has no sortable attributes) or a malformed one, an unknown strategy, a
// threshold outside 0..1, attributesToSnippet (naming attributesToCrop),
// and a uid that is neither the index nor its docs view.
func TestMeiliClientParameters(t *testing.T) {
	search := &pagesSearch{hits: docsPages()[:1]}
	post := meiliPoster(t, search, docsScope)
	const params = `"matchingStrategy":"all","showRankingScore":true,"rankingScoreThreshold":0.25,"sort":[]`
	for _, path := range []string{"indexes/wiki_pages/search", "indexes/wiki_pages-docs/search"} {
		code, body := post(path, `{"q":"memory",`+params+`}`)
		var res struct{ Hits []map[string]any }
		_ = json.Unmarshal([]byte(body), &res)
		if code != 200 || len(res.Hits) != 1 || res.Hits[0]["_rankingScore"] != 0.91 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		sent := search.sent[len(search.sent)-1]
		if sent.MatchingStrategy != "all" || !sent.ShowRankingScore || sent.RankingScoreThreshold == nil || *sent.RankingScoreThreshold != 0.25 {
			t.Fatalf("%s: the backend got %+v", path, sent)
		}
	}
	code, body := post("multi-search", `{"queries":[{"indexUid":"wiki_pages-docs","q":"memory",`+params+`},{"indexUid":"wiki_pages","q":"memory"}]}`)
	if code != 200 || !strings.Contains(body, `"indexUid":"wiki_pages-docs"`) || !strings.Contains(body, `"hierarchy_lvl1":"Agent memory"`) ||
		strings.Count(body, `"_rankingScore"`) != 1 {
		t.Fatalf("multi-search: %d %s", code, body)
	}
	calls := len(search.sent)
	refused := []struct{ path, body, code, msg string }{
		{"indexes/wiki_pages/search", `{"sort":["title:asc"]}`, "invalid_search_sort", "Attribute `title` is not sortable. This index does not have configured sortable attributes."},
		{"indexes/wiki_pages-docs/search", `{"sort":["title"]}`, "invalid_search_sort", "expected expression ending by `:asc` or `:desc`, found `title`"},
		{"indexes/wiki_pages/search", `{"matchingStrategy":"some"}`, "invalid_search_matching_strategy", "expected one of `last`, `all`, `frequency`"},
		{"indexes/wiki_pages/search", `{"rankingScoreThreshold":1.5}`, "invalid_search_ranking_score_threshold", "expected a float between `0.0` and `1.0`"},
		{"indexes/wiki_pages/search", `{"rankingScoreThreshold":-0.1}`, "invalid_search_ranking_score_threshold", "between"},
		{"indexes/wiki_pages/search", `{"showRankingScore":"yes"}`, "bad_request", "showRankingScore"},
		{"indexes/wiki_pages/search", `{"attributesToSnippet":["content:20"]}`, "bad_request", "attributesToCrop"},
		{"multi-search", `{"queries":[{"indexUid":"wiki_pages-docs","sort":["url:desc"]}]}`, "invalid_search_sort", "Inside `.queries[0]`: Attribute `url` is not sortable"},
		{"indexes/wiki_pages/facet-search", `{"facetName":"status","matchingStrategy":"none"}`, "invalid_search_matching_strategy", "matchingStrategy"},
		{"indexes/wiki_pages-docs-docs/search", `{}`, "index_not_found", "Index `wiki_pages-docs-docs` not found."},
		{"multi-search", `{"queries":[{"indexUid":"docs"}]}`, "index_not_found", "Inside `.queries[0]`"},
	}
	for _, c := range refused {
		code, body := post(c.path, c.body)
		var e meiliErrorBody
		_ = json.Unmarshal([]byte(body), &e)
		if code/100 != 4 || e.Code != c.code || !strings.Contains(e.Message, c.msg) || e.Link != meiliErrorLink {
			t.Errorf("%s %s: %d %s, want %s …%s", c.path, c.body, code, body, c.code, c.msg)
		}
	}
	if len(search.sent) != calls {
		t.Fatalf("%d refused searches reached the backend", len(search.sent)-calls)
	}
	// The docs view has facets and facet search as the index does.
	code, body = post("indexes/wiki_pages-docs/facet-search", `{"facetName":"project","facetQuery":"kun"}`)
	if code != 200 || !strings.Contains(body, `{"value":"kunora-kgent","count":1}`) {
		t.Fatalf("facet-search on the docs view: %d %s", code, body)
	}
}
