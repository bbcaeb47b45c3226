package meiliroutes

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
)

func TestMeiliDecodeRefusesUnknownFieldsNamingTheSupportedOnes(t *testing.T) {
	_, err := decodeMeili[meiliSearchRequest]([]byte(`{"q":"x","distinct":"title"}`))
	pe := protocol.AsError(err)
	if pe.Code != protocol.CodeInvalidRequest || !strings.Contains(pe.Message, `"distinct"`) || !strings.Contains(pe.Message, "attributesToHighlight") ||
		!strings.Contains(pe.Message, "matchingStrategy") {
		t.Fatalf("unknown field: %v", err)
	}
	_, err = decodeMeili[meiliSearchRequest]([]byte(`{"q":"x","attributesToSnippet":["content:20"]}`))
	if msg := protocol.AsError(err).Message; !strings.Contains(msg, "attributesToSnippet is attributesToCrop") {
		t.Fatalf("attributesToSnippet: %v", err)
	}
	for _, body := range []string{`{"q":"a","q":"b"}`, "{\"q\":\"\xff\"}", `{"queries":[{"indexUid":"x","indexUid":"y"}]}`} {
		_, err1 := decodeMeili[meiliSearchRequest]([]byte(body))
		_, err2 := decodeMeili[meiliMultiRequest]([]byte(body))
		if err1 == nil && err2 == nil {
			t.Errorf("%q decoded", body)
		}
	}
}

func TestMeiliQueryValidation(t *testing.T) {
	bad := map[string]string{
		`{"limit":-1}`:                   "limit must be between 0 and 100",
		`{"limit":1000}`:                 "limit must be between",
		`{"offset":-1}`:                  "offset must be between",
		`{"hitsPerPage":500}`:            "hitsPerPage must be between",
		`{"facets":["content"]}`:         "Invalid facet distribution, attribute `content` is not filterable. The available filterable attributes are `project, version, status`.",
		`{"filter":"content = x"}`:       "not a filterable attribute",
		`{"filter":"status = a) OR (b"}`: "filter",
		`{"highlightPreTag":"` + strings.Repeat("x", 65) + `"}`: "highlightPreTag is longer",
	}
	for body, want := range bad {
		req, err := decodeMeili[meiliSearchRequest]([]byte(body))
		if err == nil {
			err = req.Validate()
		}
		if err == nil || !strings.Contains(protocol.AsError(err).Message, want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	req, _ := decodeMeili[meiliSearchRequest]([]byte(`{"q":" memory ","filter":["status = working"],"limit":5}`))
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	r := req.(*meiliSearchRequest)
	if r.std.Question != "memory" || r.filter != `(status = "working")` {
		t.Fatalf("question %q filter %q", r.std.Question, r.filter)
	}
}

func TestMeiliMultiValidationNamesTheQuery(t *testing.T) {
	cases := map[string]string{
		`{}`:                      "Missing field `queries`",
		`{"queries":[{"q":"a"}]}`: "Inside `.queries[0]`: Missing field `indexUid`",
		`{"queries":[{"indexUid":"i"},{"indexUid":"i","limit":101}]}`: "Inside `.queries[1]`: limit",
	}
	for body, want := range cases {
		req, err := decodeMeili[meiliMultiRequest]([]byte(body))
		if err == nil {
			err = req.Validate()
		}
		if err == nil || !strings.Contains(protocol.AsError(err).Message, want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// The gate sends the decided filter ANDed with the caller's, and asks only
// for the fields it shows plus those the scope check reads.
func TestMeiliParamsNarrowTheDecidedFilter(t *testing.T) {
	eff := protocol.Scope{Projects: []string{"p"}, Paths: []string{"publish/p"}, Version: "main"}
	q := meiliQuery{filter: `status = "working"`, AttributesToRetrieve: []string{"title", "pathPrefixes"}, AttributesToHighlight: []string{"*"}}
	p := meiliParams(&q, eff, retrievedAttributes(q.AttributesToRetrieve, meiliAttributes))
	if want := "(" + meili.Filter(eff) + `) AND (status = "working")`; p.Filter != want {
		t.Fatalf("filter %q, want %q", p.Filter, want)
	}
	if got := strings.Join(p.AttributesToRetrieve, ","); got != "title,path,project,version,status" {
		t.Fatalf("retrieve %s", got)
	}
	if got := strings.Join(p.AttributesToHighlight, ","); got != "title,content" {
		t.Fatalf("highlight %s", got)
	}
}

// A count-only query (limit 0, or hitsPerPage 0 in page mode: what
// InstantSearch sends for the counts of a refined facet) asks the backend
// for one hit, which is not shown, and answers the totals with the limit
// or hitsPerPage asked.
func TestMeiliCountOnlyQueries(t *testing.T) {
	eff := protocol.Scope{Projects: []string{"p"}, Paths: []string{"publish/p"}, Version: "main"}
	zero, page := 0, 0
	offsetMode := meiliQuery{Limit: &zero, Facets: []string{"status"}}
	if p := meiliParams(&offsetMode, eff, meiliAttributes); p.Limit != 1 || p.HitsPerPage != nil {
		t.Fatalf("limit 0 → backend limit %d hitsPerPage %v", p.Limit, p.HitsPerPage)
	}
	pageMode := meiliQuery{HitsPerPage: &zero, Page: &page}
	if p := meiliParams(&pageMode, eff, meiliAttributes); p.HitsPerPage == nil || *p.HitsPerPage != 1 {
		t.Fatalf("hitsPerPage 0 → backend hitsPerPage %v", p.HitsPerPage)
	}
	if !offsetMode.countOnly() || !pageMode.countOnly() || (&meiliQuery{Limit: &zero, Page: &page}).countOnly() {
		t.Fatal("countOnly: limit 0 counts in offset mode only, hitsPerPage 0 in page mode")
	}
	resp := &meili.SearchResponse{EstimatedTotalHits: 12, Limit: 1}
	raw, _ := json.Marshal(meiliResultOf(&offsetMode, resp, []map[string]any{}, 0))
	if string(raw) != `{"hits":[],"query":"","processingTimeMs":0,"limit":0,"offset":0,"estimatedTotalHits":12}` {
		t.Fatalf("count-only offset shape %s", raw)
	}
	resp = &meili.SearchResponse{TotalHits: 12, HitsPerPage: 1, Page: 1}
	raw, _ = json.Marshal(meiliResultOf(&pageMode, resp, []map[string]any{}, 0))
	if string(raw) != `{"hits":[],"query":"","processingTimeMs":0,"hitsPerPage":0,"page":0,"totalPages":0,"totalHits":12}` {
		t.Fatalf("count-only page shape %s", raw)
	}
}

func TestMeiliHitShowsOnlyAskedFieldsAndFormatted(t *testing.T) {
	h := meili.Hit{ID: "7", Path: "publish/p/a.md", Title: "Memory", Content: "long", PathPrefixes: []string{"publish"},
		Formatted: meili.Formatted{Title: "<em>Memory</em>"}}
	got := meiliHit(h, []string{"id", "title", "content"}, true)
	raw, _ := json.Marshal(got)
	want := `{"_formatted":{"content":"long","id":"7","title":"\u003cem\u003eMemory\u003c/em\u003e"},"content":"long","id":"7","title":"Memory"}`
	if string(raw) != want {
		t.Fatalf("hit %s\nwant %s", raw, want)
	}
}

func TestMeiliResultShapes(t *testing.T) {
	resp := &meili.SearchResponse{EstimatedTotalHits: 10, Limit: 5, ProcessingTimeMs: 2}
	res := meiliResultOf(&meiliQuery{}, resp, []map[string]any{}, 3)
	raw, _ := json.Marshal(res)
	if string(raw) != `{"hits":[],"query":"","processingTimeMs":2,"limit":5,"offset":0,"estimatedTotalHits":7}` {
		t.Fatalf("offset shape %s", raw)
	}
	page := 2
	resp = &meili.SearchResponse{TotalHits: 5, HitsPerPage: 2, Page: 2}
	res = meiliResultOf(&meiliQuery{Page: &page}, resp, []map[string]any{}, 1)
	raw, _ = json.Marshal(res)
	if string(raw) != `{"hits":[],"query":"","processingTimeMs":0,"hitsPerPage":2,"page":2,"totalPages":2,"totalHits":4}` {
		t.Fatalf("page shape %s", raw)
	}
}

func TestMeiliErrorShape(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
		typ    string
	}{
		{indexNotFound("other", -1), 404, "index_not_found", "invalid_request"},
		{indexNotFound("other", 2), 400, "index_not_found", "invalid_request"},
		{invalid("bad"), 400, "bad_request", "invalid_request"},
		{protocol.NewError(protocol.CodeUnauthorized, "no"), 401, "invalid_api_key", "auth"},
		{protocol.NewError(protocol.CodeForbiddenScope, "no"), 403, "forbidden_scope", "auth"},
		{protocol.NewError(protocol.CodeSearchUnavailable, "down"), 503, "search_unavailable", "system"},
	}
	for _, c := range cases {
		pe := protocol.AsError(c.err)
		raw, _ := json.Marshal(errorBody(c.err, pe))
		var body map[string]string
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		if pe.Status != c.status || body["code"] != c.code || body["type"] != c.typ || body["link"] != meiliErrorLink || body["message"] == "" {
			t.Errorf("%v: %d %v", c.err, pe.Status, body)
		}
	}
	if !errors.As(indexNotFound("x", -1), new(*protocol.Error)) {
		t.Fatal("index_not_found is not audited as a protocol error")
	}
}

// noCredential refuses every caller, as authenticated-read refuses a
// reader without a token.
type noCredential struct{ anonymousAuth }

func (noCredential) AuthenticateAnswer(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, protocol.NewError(protocol.CodeUnauthorized, "missing credential")
}

// Through the gateway, a refusal on these routes has the protocol's status
// and headers with Meilisearch's body, and a path under the prefix that is
// no route is Meilisearch's 404 naming the routes served.
func TestRefusalsThroughTheGateway(t *testing.T) {
	g, err := gateway.New(gateway.Config{}, gateway.Deps{Auth: noCredential{}, Policy: scopePolicy{}, Search: &countingSearch{},
		Routes: []gateway.RouteSet{Set()}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path string
		status       int
		code, header string
	}{
		{http.MethodPost, "/answer/meilisearch/indexes/wiki_pages/search", 401, "invalid_api_key", "WWW-Authenticate"},
		{http.MethodGet, "/answer/meilisearch/multi-search", 405, "method_not_allowed", "Allow"},
		{http.MethodPost, "/answer/meilisearch/indexes/wiki_pages/documents", 404, "not_found", ""},
		{http.MethodPost, "/answer/meilisearch", 404, "not_found", ""},
	}
	for _, c := range cases {
		w := httptest.NewRecorder()
		g.ServeHTTP(w, httptest.NewRequest(c.method, c.path, strings.NewReader(`{}`)))
		var body meiliErrorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: %v (%s)", c.method, c.path, err, w.Body)
		}
		if w.Code != c.status || body.Code != c.code || body.Link != meiliErrorLink || (c.header != "" && w.Header().Get(c.header) == "") {
			t.Errorf("%s %s: %d %+v %v", c.method, c.path, w.Code, body, w.Header())
		}
	}
}
