package integration

import (
	"net/http"
	"strings"
	"testing"
)

// publicProjects are the projects the shipped policy publishes to people.
var publicProjects = map[string]bool{"kunora-kgent": true, "kunora-gateway": true, "kunora-ops": true}

// People's search (/answer/search): the page sets the default scope, as on
// /answer/ask, and the shape is /agent/tools/search's.
func TestPeopleSearchPageScope(t *testing.T) {
	g := startGate(t, gateOptions{})
	kgent := "publish/system/components/kunora-kgent"
	r := g.post("/answer/search", nil, `{"question":"memory","page":{"path":"`+kgent+`/index.md"}}`)
	body := r.json(t)
	hits, _ := body["hits"].([]any)
	if r.Status != 200 || len(hits) == 0 || body["total"] == nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	for _, h := range hits {
		hit := h.(map[string]any)
		if !strings.HasPrefix(hit["path"].(string), kgent+"/") || hit["sourceProject"] != "kunora-kgent" || hit["version"] != "main" {
			t.Fatalf("hit outside the page's section: %v", hit)
		}
	}
	if s := body["audit"].(map[string]any)["scope"].(string); !strings.Contains(s, kgent) {
		t.Fatalf("audit scope %q", s)
	}
	wide := g.post("/answer/search", nil, `{"question":"memory"}`).json(t)
	for _, h := range wide["hits"].([]any) {
		if hit := h.(map[string]any); !publicProjects[hit["sourceProject"].(string)] || hit["version"] != "main" {
			t.Fatalf("public default search hit: %v", hit)
		}
	}
	if r := g.post("/answer/search", nil, `{"question":"memory","scope":{"includeWorkingDocs":true}}`); r.Status != 403 || r.errorCode(t) != "forbidden_scope" {
		t.Fatalf("anonymous working docs: %d %s", r.Status, r.Body)
	}
}

// meiliHits returns the hits of a Meilisearch search response, asserting
// every one is public, approved and main, and shows no index-only field.
func meiliHits(t *testing.T, res map[string]any) []any {
	t.Helper()
	hits, ok := res["hits"].([]any)
	if !ok {
		t.Fatalf("no hits: %v", res)
	}
	for _, h := range hits {
		hit := h.(map[string]any)
		if hit["status"] != "approved" || hit["version"] != "main" || !publicProjects[hit["project"].(string)] || hit["pathPrefixes"] != nil {
			t.Fatalf("hit outside the public scope: %v", hit)
		}
	}
	return hits
}

// The Meilisearch-compatible routes: Meilisearch's response shape with
// only public approved hits; a client filter that tries to widen (status =
// working, which the backend does hold for this query) narrows to nothing;
// a foreign index uid is index_not_found and reaches no backend; errors in
// Meilisearch's shape; no backend key in any answer.
func TestPeopleMeiliCompatibleSearch(t *testing.T) {
	g := startGate(t, gateOptions{})
	const index = "/answer/meilisearch/indexes/wiki_pages/search"
	r := g.post(index, nil, `{"q":"memory","limit":5,"attributesToHighlight":["title"],"attributesToCrop":["content"],"cropLength":12,"highlightPreTag":"<mark>","highlightPostTag":"</mark>"}`)
	res := r.json(t)
	hits := meiliHits(t, res)
	if r.Status != 200 || len(hits) == 0 || res["query"] != "memory" || res["limit"].(float64) != 5 || res["offset"].(float64) != 0 ||
		res["estimatedTotalHits"] == nil || res["processingTimeMs"] == nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	f, ok := hits[0].(map[string]any)["_formatted"].(map[string]any)
	if !ok || f["title"] == nil || f["content"] == nil || !strings.Contains(string(r.Body), "<mark>") {
		t.Fatalf("_formatted: %s", r.Body)
	}

	working := directMeili(t, g, `{"q":"memory","filter":"status = working"}`)
	if len(working) == 0 {
		t.Fatal("the sample wiki has no working doc about memory: the next check proves nothing")
	}
	for _, body := range []string{
		`{"q":"memory","filter":"status = working"}`,
		`{"q":"memory","filter":["status = working"]}`,
		`{"q":"memory","filter":"status = working OR status = approved AND status = working"}`,
	} {
		if got := meiliHits(t, g.post(index, nil, body).json(t)); len(got) != 0 {
			t.Fatalf("%s: %d hits", body, len(got))
		}
	}

	multi := g.post("/answer/meilisearch/multi-search", nil,
		`{"queries":[{"indexUid":"wiki_pages","q":"memory","limit":3},{"indexUid":"wiki_pages","q":"memory","filter":"status = working"}]}`)
	results, _ := multi.json(t)["results"].([]any)
	if multi.Status != 200 || len(results) != 2 {
		t.Fatalf("multi-search: %d %s", multi.Status, multi.Body)
	}
	first, second := results[0].(map[string]any), results[1].(map[string]any)
	if first["indexUid"] != "wiki_pages" || len(meiliHits(t, first)) == 0 || len(meiliHits(t, second)) != 0 {
		t.Fatalf("multi-search results: %s", multi.Body)
	}

	before := g.backendRequests(g.meiliURL, meiliKey)
	foreign := g.post("/answer/meilisearch/indexes/secret_pages/search", nil, `{"q":"memory"}`)
	meiliError(t, foreign, 404, "index_not_found")
	foreignMulti := g.post("/answer/meilisearch/multi-search", nil, `{"queries":[{"indexUid":"wiki_pages","q":"a"},{"indexUid":"secret_pages","q":"memory"}]}`)
	meiliError(t, foreignMulti, 400, "index_not_found")
	if !strings.Contains(string(foreignMulti.Body), "Inside `.queries[1]`") {
		t.Fatalf("which query: %s", foreignMulti.Body)
	}
	meiliError(t, g.post(index, nil, `{"q":"memory","sort":["title:asc"]}`), 400, "invalid_search_sort")
	meiliError(t, g.post(index, nil, `{"q":"memory","distinct":"title"}`), 400, "bad_request")
	meiliError(t, g.post(index, nil, `{"q":"a","q":"b"}`), 400, "bad_request")
	meiliError(t, g.post(index, nil, `{"q":"memory","filter":"status = working) OR (status = working"}`), 400, "bad_request")
	// Routes a Meilisearch client may try that the gate does not serve
	// answer in Meilisearch's shape, naming the ones it does.
	for _, path := range []string{"/answer/meilisearch/health", "/answer/meilisearch/indexes/wiki_pages/documents", "/answer/meilisearch"} {
		unknown := g.post(path, nil, `{}`)
		meiliError(t, unknown, 404, "not_found")
		if !strings.Contains(string(unknown.Body), "/multi-search") {
			t.Fatalf("%s does not name the routes served: %s", path, unknown.Body)
		}
	}
	// +1: the log read itself is logged by the development backend.
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
		t.Fatalf("refused calls reached Meilisearch (%d new requests)", after-before-1)
	}
	for _, b := range [][]byte{r.Body, multi.Body, foreign.Body} {
		if strings.Contains(string(b), meiliKey) {
			t.Fatal("a backend key in a response")
		}
	}
}

// meiliError asserts Meilisearch's error shape.
func meiliError(t *testing.T, r response, status int, code string) {
	t.Helper()
	e := r.json(t)
	if r.Status != status || e["code"] != code || e["message"] == "" || e["type"] == nil || e["link"] == nil || e["error"] != nil {
		t.Fatalf("want %d %s in Meilisearch's shape: %d %s", status, code, r.Status, r.Body)
	}
}

// directMeili searches the development Meilisearch with its key, as only
// the gate may, and returns the hits.
func directMeili(t *testing.T, g *gate, body string) []any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.meiliURL+"/indexes/wiki_pages/search", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+meiliKey)
	r := g.do(req)
	if r.Status != 200 {
		t.Fatalf("development Meilisearch: %d %s", r.Status, r.Body)
	}
	return r.json(t)["hits"].([]any)
}

// A docs page of an allowed origin may call the Meilisearch-compatible
// routes from the browser: the preflight allows the X-Meilisearch-Client
// header the meilisearch JS client always sends.
func TestPeopleMeiliCompatiblePreflight(t *testing.T) {
	const docs = "https://docs.example.com"
	g := startGate(t, gateOptions{extraOptions: "cors {\n allowed_origins " + docs + "\n}"})
	req, _ := http.NewRequest(http.MethodOptions, g.url+"/answer/meilisearch/multi-search", nil)
	req.Header.Set("Origin", docs)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-meilisearch-client")
	r := g.do(req)
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != docs || !strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "X-Meilisearch-Client") {
		t.Fatalf("preflight: %d %v", r.Status, r.Header)
	}
}
