package devmeili

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestSearchErrorsMatchTheEngineFixtures sends the requests behind the
// engine's error snapshots and expects the very same body.
func TestSearchErrorsMatchTheEngineFixtures(t *testing.T) {
	cases := []struct {
		method, target, body, fixture string
		status                        int
	}{
		{"POST", "/indexes/wiki_pages/search", `{"limit":"doggo"}`, "error.invalid_search_limit.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"q":["doggo"]}`, "error.invalid_search_q.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"matchingStrategy":"doggo"}`, "error.invalid_search_matching_strategy.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"rankingScoreThreshold":42}`, "error.invalid_search_ranking_score_threshold.json", 400},
		{"GET", "/indexes/wiki_pages/search?limit=doggo", "", "error.invalid_search_limit.get.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"filter":"title = Glass XOR title = Glass"}`, "error.invalid_search_filter.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"filter":"title & Glass"}`, "error.invalid_search_filter.syntax.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"filter":true}`, "error.invalid_search_filter.type.json", 400},
		{"POST", "/indexes/wiki_pages/search", `{"filter":"doggo CONTAINS kefir"}`, "error.feature_not_enabled.contains.json", 400},
		{"POST", "/indexes/movies/search", `{"q":"x"}`, "error.index_not_found.json", 404},
	}
	s := newTestServer(t)
	for _, c := range cases {
		code, got := callJSON(t, s, c.method, c.target, testMaster, c.body)
		if want := fixture(t, c.fixture); code != c.status || !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s %s:\n got  %d %v\n want %d %v", c.method, c.target, c.body, code, got, c.status, want)
		}
	}
}

func TestSearchFilterOnUnfilterableAttributeNamesTheIndex(t *testing.T) {
	s := newTestServer(t)
	code, got := search(t, s, testMaster, `{"filter":"\"many\" = \"Glass\""}`)
	want := fixture(t, "error.invalid_search_filter.not_filterable.test-snapshot.json")
	msg := got["message"].(string)
	if code != 400 || got["code"] != want["code"] || got["link"] != want["link"] {
		t.Fatalf("got %d %v", code, got)
	}
	if !strings.HasPrefix(msg, "Index `wiki_pages`: Attribute `many` is not filterable. Available filterable attribute patterns are: `id`, ") ||
		!strings.HasSuffix(msg, "\n2:6 \"many\" = \"Glass\"") {
		t.Errorf("message %q", msg)
	}
}

func TestSearchRejectsBadRequests(t *testing.T) {
	cases := []struct {
		body, code, messagePrefix string
		status                    int
	}{
		{`{"doggo":1}`, "bad_request", "Unknown field `doggo`: expected one of `q`, `vector`", 400},
		{`[1]`, "bad_request", "Invalid value type: expected an object, but found an array: `[1]`", 400},
		{`{"q":`, "malformed_payload", "The json payload provided is malformed.", 400},
		{`{"offset":-1}`, "invalid_search_offset", "Invalid value type at `.offset`: expected a positive integer, but found a negative integer: `-1`", 400},
		{`{"showRankingScore":"yes"}`, "invalid_search_show_ranking_score", "Invalid value type at `.showRankingScore`: expected a boolean", 400},
		{`{"attributesToRetrieve":[1]}`, "invalid_search_attributes_to_retrieve", "Invalid value type at `.attributesToRetrieve[0]`: expected a string", 400},
		{`{"sort":["title:asc"]}`, "invalid_search_sort", "Index `wiki_pages`: Attribute `title` is not sortable.", 400},
		{`{"facets":["content"]}`, "invalid_search_facets", "Invalid facet distribution: Pattern `content` is not filterable.", 400},
		{`{"distinct":"title"}`, "invalid_search_distinct", "Index `wiki_pages`: Attribute `title` is not filterable", 400},
		{`{"attributesToSearchOn":["path"]}`, "invalid_search_attributes_to_search_on", "Index `wiki_pages`: Attribute `path` is not searchable.", 400},
		{`{"hybrid":{"embedder":"default"}}`, "invalid_search_embedder", "Cannot find embedder with name `default`.", 400},
		{`{"vector":[0.1]}`, "missing_search_hybrid", "Passing `vector` as a parameter requires `hybrid`", 400},
	}
	s := newTestServer(t)
	for _, c := range cases {
		code, got := search(t, s, testMaster, c.body)
		if code != c.status || got["code"] != c.code || !strings.HasPrefix(got["message"].(string), c.messagePrefix) {
			t.Errorf("%s: got %d %v", c.body, code, got)
		}
		if got["type"] != "invalid_request" || got["link"] != "https://docs.meilisearch.com/errors#"+c.code {
			t.Errorf("%s: type/link %v %v", c.body, got["type"], got["link"])
		}
	}
}

func TestSearchBodyErrorsWinOverAMissingIndex(t *testing.T) {
	s := newTestServer(t)
	code, got := callJSON(t, s, "POST", "/indexes/movies/search", testMaster, `{"q":["doggo"]}`)
	if code != 400 || got["code"] != "invalid_search_q" {
		t.Errorf("got %d %v, want invalid_search_q", code, got)
	}
	code, got = callJSON(t, s, "POST", "/indexes/bad.uid/search", testMaster, `{}`)
	if code != 400 || got["code"] != "invalid_index_uid" {
		t.Errorf("bad uid: got %d %v", code, got)
	}
}

func TestSearchChecksContentTypeAndSize(t *testing.T) {
	s := newTestServer(t)
	cases := []struct {
		contentType, body, code string
		status                  int
	}{
		{"", `{}`, "missing_content_type", 415},
		{"text/plain", `{}`, "invalid_content_type", 415},
		{"application/json; charset=utf-8", ``, "missing_payload", 400},
		{"application/json", `{"q":"` + strings.Repeat("a", 2<<20) + `"}`, "payload_too_large", 413},
	}
	for _, c := range cases {
		req := httptest.NewRequest("POST", "/indexes/wiki_pages/search", bytes.NewBufferString(c.body))
		req.Header.Set("Authorization", "Bearer "+testMaster)
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		rr := httptest.NewRecorder()
		s.ServeHTTP(rr, req)
		var got map[string]any
		_ = json.Unmarshal(rr.Body.Bytes(), &got)
		if rr.Code != c.status || got["code"] != c.code {
			t.Errorf("content type %q: got %d %v, want %d %s", c.contentType, rr.Code, got, c.status, c.code)
		}
	}
}

func TestUnknownRoutesAnswerLikeTheEngine(t *testing.T) {
	s := newTestServer(t)
	if code, body := call(t, s, "GET", "/nope", testMaster, ""); code != 404 || len(body) != 0 {
		t.Errorf("unknown route: %d %q", code, body)
	}
	if code, _ := call(t, s, "PUT", "/indexes/wiki_pages/search", testMaster, "{}"); code != 405 {
		t.Errorf("wrong method: %d, want 405", code)
	}
	if code, got := callJSON(t, s, "GET", "/health", "", ""); code != 200 || !reflect.DeepEqual(got, fixture(t, "health.response.json")) {
		t.Errorf("health: %d %v", code, got)
	}
}
