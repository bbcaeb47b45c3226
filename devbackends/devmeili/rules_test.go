package devmeili

import (
	"net/http"
	"testing"
)

// searchPaths searches index uid as the master key and returns the hit ids.
func searchIDs(t *testing.T, s *Server, uid, body string) []string {
	t.Helper()
	code, res := callJSON(t, s, http.MethodPost, "/indexes/"+uid+"/search", testMaster, body)
	if code != http.StatusOK {
		t.Fatalf("search %s: %d %v", body, code, res)
	}
	var ids []string
	for _, h := range res["hits"].([]any) {
		ids = append(ids, h.(map[string]any)["id"].(string))
	}
	return ids
}

// TestStopWordsAreTheIndexSetting: as in Meilisearch, stop words are an
// index setting (default none): a created index drops no word from a
// question until its settings name some, and then drops exactly those.
func TestStopWordsAreTheIndexSetting(t *testing.T) {
	s := newTestServer(t)
	code, sum := callJSON(t, s, http.MethodPost, "/indexes", testMaster, `{"uid":"pages2","primaryKey":"id"}`)
	taskOutcome(t, s, code, sum)
	code, sum = callJSON(t, s, http.MethodPost, "/indexes/pages2/documents", testMaster,
		`[{"id":"p1","title":"Quokka care","content":"feed the quokka daily"}]`)
	taskOutcome(t, s, code, sum)
	question := `{"q":"how do I feed a quokka","matchingStrategy":"all"}`
	if ids := searchIDs(t, s, "pages2", question); len(ids) != 0 {
		t.Errorf("no stop words set: %v, want nothing (the page lacks how, do, i, a)", ids)
	}
	code, sum = callJSON(t, s, http.MethodPatch, "/indexes/pages2/settings", testMaster, `{"stopWords":["how","do","I","a"]}`)
	taskOutcome(t, s, code, sum)
	if ids := searchIDs(t, s, "pages2", question); len(ids) != 1 {
		t.Errorf("stop words set: %v, want p1", ids)
	}
	code, settings := callJSON(t, s, http.MethodGet, "/indexes/pages2/settings", testMaster, "")
	if words, _ := settings["stopWords"].([]any); code != http.StatusOK || len(words) != 4 {
		t.Errorf("settings = %v, want the four stop words", settings)
	}
	// the start-up index has the list `wikigate ingest` writes
	code, settings = callJSON(t, s, http.MethodGet, "/indexes/wiki_pages/settings", testMaster, "")
	if words, _ := settings["stopWords"].([]any); code != http.StatusOK || len(words) != len(sampleStopWords) {
		t.Errorf("sample index settings = %v, want %d stop words", settings["stopWords"], len(sampleStopWords))
	}
}

// TestTypoOnTheFirstLetterCountsTwice: Meilisearch's typo tolerance allows
// one typo from 5 letters and two from 9, and counts a typo on a word's
// first letter as two.
func TestTypoOnTheFirstLetterCountsTwice(t *testing.T) {
	s := newTestServer(t)
	code, sum := callJSON(t, s, http.MethodPost, "/indexes", testMaster, `{"uid":"pages2","primaryKey":"id"}`)
	taskOutcome(t, s, code, sum)
	code, sum = callJSON(t, s, http.MethodPost, "/indexes/pages2/documents", testMaster,
		`[{"id":"p1","title":"Memory","content":"configuration of the memory window"}]`)
	taskOutcome(t, s, code, sum)
	for q, want := range map[string]int{
		"memorx window":        1, // 6 letters, one typo inside
		"nemory window":        0, // 6 letters, the first letter: two typos
		"configuratiom window": 1, // 13 letters, one typo
		"vonfiguration window": 1, // 13 letters, the first letter: two typos, allowed from 9
		"vonfiguratiom window": 0, // three
		"memory windw":         1,
		"memory xindow":        0,
	} {
		if ids := searchIDs(t, s, "pages2", `{"q":"`+q+`","matchingStrategy":"all"}`); len(ids) != want {
			t.Errorf("%q: %v, want %d hit(s)", q, ids, want)
		}
	}
}
