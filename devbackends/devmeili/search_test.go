package devmeili

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestSearchResponseHasTheEngineShape(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	code, resp := search(t, s, key, `{"q":"agent memory","limit":2}`)
	if code != http.StatusOK {
		t.Fatalf("status %d: %v", code, resp)
	}
	want := append(sortedKeys(fixture(t, "search.response.json")), "requestUid")
	if got := sortedKeys(resp); !reflect.DeepEqual(got, sortedKeysOf(want)) {
		t.Errorf("response keys %v, want %v", got, want)
	}
	if !uuidV7.MatchString(resp["requestUid"].(string)) {
		t.Errorf("requestUid %v is not a UUIDv7", resp["requestUid"])
	}
	hits := hitsOf(t, resp)
	if len(hits) != 2 || resp["limit"].(float64) != 2 || resp["query"] != "agent memory" {
		t.Fatalf("got %d hits, limit %v, query %v", len(hits), resp["limit"], resp["query"])
	}
	// contentHash: the start-up index holds what `wikigate ingest` writes.
	wantFields := []string{"content", "contentHash", "headings", "id", "path", "pathPrefixes", "project", "status", "title", "updatedAt", "url", "version"}
	if got := sortedKeys(hits[0]); !reflect.DeepEqual(got, wantFields) {
		t.Errorf("hit fields %v, want %v", got, wantFields)
	}
	if _, err := time.Parse(time.RFC3339, hits[0]["updatedAt"].(string)); err != nil {
		t.Errorf("updatedAt: %v", err)
	}
}

func sortedKeysOf(keys []string) []string {
	m := map[string]any{}
	for _, k := range keys {
		m[k] = true
	}
	return sortedKeys(m)
}

func TestSearchPageModeHasTheEngineShape(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"agent memory","hitsPerPage":1,"page":2}`)
	if got, want := sortedKeys(resp), sortedKeys(fixture(t, "search.paginated.response.test-snapshot.json")); !reflect.DeepEqual(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	if len(hitsOf(t, resp)) != 1 || resp["totalPages"] != resp["totalHits"] || resp["page"].(float64) != 2 {
		t.Errorf("page 2 of 1 per page: %v", resp)
	}
	_, resp = search(t, s, key, `{"q":"agent memory","page":0}`)
	if len(hitsOf(t, resp)) != 0 || resp["hitsPerPage"].(float64) != 20 {
		t.Errorf("page 0 must return no hits with hitsPerPage 20: %v", resp)
	}
}

func TestPlaceholderSearchReturnsEveryPageInAStableOrder(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, all := search(t, s, key, `{"limit":100,"attributesToRetrieve":["id"],"showRankingScore":true}`)
	if int(all["estimatedTotalHits"].(float64)) != len(s.defaultIndex().docs) || all["query"] != "" {
		t.Fatalf("placeholder search: %v hits of %d", all["estimatedTotalHits"], len(s.defaultIndex().docs))
	}
	var paged []any
	for offset := 0; offset < len(s.defaultIndex().docs); offset += 10 {
		_, page := search(t, s, key, `{"q":null,"offset":`+itoa(offset)+`,"limit":10,"attributesToRetrieve":["id"],"showRankingScore":true}`)
		paged = append(paged, page["hits"].([]any)...)
	}
	if !reflect.DeepEqual(paged, all["hits"]) {
		t.Error("offset pages do not concatenate to the full placeholder result")
	}
	if hitsOf(t, all)[0]["_rankingScore"].(float64) != 1 {
		t.Error("placeholder hits must score 1")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestSearchRanksTitleAboveContent(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"summarisation","attributesToRetrieve":["title"],"showRankingScore":true}`)
	hits := hitsOf(t, resp)
	if len(hits) < 2 || hits[0]["title"] != "Memory summarisation and windowing" {
		t.Fatalf("first hit %v, want the page titled with the word", hits)
	}
	prev := 1.0
	for _, h := range hits {
		score := h["_rankingScore"].(float64)
		if score > prev || score < 0 {
			t.Errorf("scores not in 1..0 order: %v after %v", score, prev)
		}
		prev = score
	}
}

func TestSearchToleratesTyposAndPrefixes(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	for _, q := range []string{"memroy windw", "agent mem"} {
		_, resp := search(t, s, key, `{"q":"`+q+`","limit":1}`)
		if len(hitsOf(t, resp)) == 0 {
			t.Errorf("%q found nothing", q)
		}
	}
}

func TestSearchFindsNothingForTopicsTheWikiDoesNotCover(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	for _, q := range []string{"What is the payroll schedule?", "vacation policy", "holiday calendar", "quantum computing", "office catering"} {
		for _, strategy := range []string{"last", "frequency", "all"} {
			_, resp := search(t, s, key, `{"q":"`+q+`","matchingStrategy":"`+strategy+`"}`)
			if n := len(hitsOf(t, resp)); n != 0 {
				t.Errorf("%q (%s): %d hits, want none", q, strategy, n)
			}
		}
	}
}

func TestSearchFormattedHighlightsRetrievedFields(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"agent memory","attributesToRetrieve":["title","project"],"attributesToHighlight":["title"],"highlightPreTag":"[","highlightPostTag":"]","limit":1,"filter":"path = publish/system/components/kunora-kgent/memory.md"}`)
	hit := hitsOf(t, resp)[0]
	formattedHit := hit["_formatted"].(map[string]any)
	if got, want := sortedKeys(formattedHit), []string{"project", "title"}; !reflect.DeepEqual(got, want) {
		t.Errorf("_formatted keys %v, want the retrieved fields %v (as in search.formatted.hit.json)", got, want)
	}
	if formattedHit["title"] != "[Agent] [memory] configuration" {
		t.Errorf("highlighted title %q", formattedHit["title"])
	}
	if formattedHit["project"] != hit["project"] {
		t.Errorf("a field not highlighted must be unchanged: %q", formattedHit["project"])
	}
	_, raw := call(t, s, http.MethodPost, "/indexes/wiki_pages/search", key, `{"q":"memory","attributesToHighlight":["title"],"limit":1}`)
	if !strings.Contains(string(raw), "<em>") {
		t.Error("default highlight tags must be written as <em>, not escaped")
	}
}

func TestSearchCropsAroundTheMatch(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"eviction","attributesToCrop":["content"],"cropLength":5,"limit":1}`)
	cropped := hitsOf(t, resp)[0]["_formatted"].(map[string]any)["content"].(string)
	if !strings.HasPrefix(cropped, "…") || !strings.HasSuffix(cropped, "…") || !strings.Contains(strings.ToLower(cropped), "eviction") {
		t.Errorf("cropped content %q: want …five words around the match…", cropped)
	}
	if n := len(tokenize(cropped)); n != 5 {
		t.Errorf("cropped to %d words, want 5", n)
	}
	_, resp = search(t, s, key, `{"q":"eviction","attributesToCrop":["content:3"],"cropMarker":"..","limit":1}`)
	cropped = hitsOf(t, resp)[0]["_formatted"].(map[string]any)["content"].(string)
	if !strings.HasPrefix(cropped, "..") || len(tokenize(cropped)) != 3 {
		t.Errorf("content:3 with marker '..': %q", cropped)
	}
}

func TestSearchMatchesPositionPointsAtTheWords(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"memory","showMatchesPosition":true,"limit":3}`)
	for _, hit := range hitsOf(t, resp) {
		positions := hit["_matchesPosition"].(map[string]any)
		content := hit["content"].(string)
		for _, p := range positions["content"].([]any) {
			pos := p.(map[string]any)
			start, length := int(pos["start"].(float64)), int(pos["length"].(float64))
			if got := strings.ToLower(content[start : start+length]); got != "memory" {
				t.Errorf("position %d+%d covers %q", start, length, got)
			}
		}
	}
}

func TestGetSearchAcceptsStringAndJSONFilters(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	for _, filter := range []string{`project = kunora-ops AND version = "v1.0"`, `[["project = kunora-ops"], "version = v1.0"]`} {
		target := "/indexes/wiki_pages/search?q=monitoring&attributesToRetrieve=project,version&filter=" + url.QueryEscape(filter)
		code, resp := callJSON(t, s, http.MethodGet, target, key, "")
		hits := hitsOf(t, resp)
		if code != http.StatusOK || len(hits) == 0 {
			t.Fatalf("%s: status %d, %d hits", filter, code, len(hits))
		}
		for _, h := range hits {
			if h["project"] != "kunora-ops" || h["version"] != "v1.0" {
				t.Errorf("%s: hit outside the filter: %v", filter, h)
			}
		}
	}
}

func TestSearchFacetDistributionCountsAllHits(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	_, resp := search(t, s, key, `{"q":"memory","facets":["status"],"limit":1}`)
	dist := resp["facetDistribution"].(map[string]any)["status"].(map[string]any)
	if dist["approved"].(float64)+dist["working"].(float64) != resp["estimatedTotalHits"].(float64) {
		t.Errorf("status counts %v do not add up to %v hits", dist, resp["estimatedTotalHits"])
	}
	if _, ok := resp["facetStats"].(map[string]any); !ok {
		t.Error("facetStats must be present (empty) when facets are requested")
	}
}
