package meili

import (
	"encoding/json"
	"testing"
)

// searchParamsCases cover every field set and unset, zero and negative
// numbers behind pointers, empty and nil lists, and strings that
// json.Marshal escapes (HTML, quotes, control bytes, invalid UTF-8).
func searchParamsCases() []SearchParams {
	zero, two, neg := 0, 2, -1
	half, tiny, zeroF, huge := 0.5, 1e-7, 0.0, 3e21
	odd := "a<b>&\"c\\\n\x01\xff\u2028é"
	return []SearchParams{
		{},
		{Filter: `project IN ["a"]`},
		{Query: "agent memory", Filter: `version = "main"`, Limit: 6, AttributesToRetrieve: []string{"id", "path"},
			AttributesToCrop: []string{"content"}, CropLength: 30, ShowRankingScore: true},
		{Query: odd, Filter: odd, Limit: -3, Offset: 40, AttributesToRetrieve: []string{}, AttributesToCrop: []string{odd, ""},
			CropLength: 1, CropMarker: odd, AttributesToHighlight: []string{"title", odd}, HighlightPreTag: "<em>",
			HighlightPostTag: "</em>", Page: &zero, HitsPerPage: &two, Facets: []string{"project", "version"}},
		{Filter: "f", Page: &neg, Facets: []string{}},
		{Filter: "f", MatchingStrategy: "all", RankingScoreThreshold: &half},
		{Filter: "f", MatchingStrategy: odd, RankingScoreThreshold: &tiny},
		{Filter: "f", RankingScoreThreshold: &zeroF},
		{Filter: "f", RankingScoreThreshold: &huge},
	}
}

func TestSearchParamsAppendJSONIsMarshal(t *testing.T) {
	for i, p := range searchParamsCases() {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.appendJSON([]byte(nil)); string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func FuzzSearchParamsAppendJSON(f *testing.F) {
	f.Add("agent memory", `version = "main"`, 6, 0, "content", "<em>", true)
	f.Fuzz(func(t *testing.T, q, filter string, limit, page int, attr, tag string, score bool) {
		p := SearchParams{Query: q, Filter: filter, Limit: limit, AttributesToCrop: []string{attr, q},
			HighlightPreTag: tag, ShowRankingScore: score, MatchingStrategy: tag}
		if threshold := float64(limit) / float64(page|1); score {
			p.RankingScoreThreshold = &threshold
		}
		if page%2 == 0 {
			p.Page = &page
		}
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.appendJSON(nil); string(got) != string(want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}
