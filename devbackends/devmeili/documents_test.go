package devmeili

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestGetDocument(t *testing.T) {
	s := newTestServer(t)
	doc := s.defaultIndex().docs[0]
	id, _ := doc.get("id")
	code, got := callJSON(t, s, "GET", "/indexes/wiki_pages/documents/"+id.(string), testMaster, "")
	if code != 200 || got["id"] != id || got["title"] == nil || got["_formatted"] != nil {
		t.Fatalf("document: %d %v", code, got)
	}
	_, got = callJSON(t, s, "GET", "/indexes/wiki_pages/documents/"+id.(string)+"?fields=id,title", testMaster, "")
	if keys := sortedKeys(got); !reflect.DeepEqual(keys, []string{"id", "title"}) {
		t.Errorf("fields=id,title gave %v", keys)
	}
	code, got = callJSON(t, s, "GET", "/indexes/wiki_pages/documents/1", testMaster, "")
	if code != 404 || !reflect.DeepEqual(got, fixture(t, "error.document_not_found.json")) {
		t.Errorf("missing document: %d %v", code, got)
	}
	if code, got = callJSON(t, s, "GET", "/indexes/movies/documents/1", testMaster, ""); code != 404 || got["code"] != "index_not_found" {
		t.Errorf("missing index: %d %v", code, got)
	}
}

func TestListDocumentsWithFilter(t *testing.T) {
	s := newTestServer(t)
	target := "/indexes/wiki_pages/documents?limit=2&fields=project,path&filter=" + url.QueryEscape("project = kunora-ops")
	code, got := callJSON(t, s, "GET", target, testMaster, "")
	if code != 200 || !reflect.DeepEqual(sortedKeys(got), sortedKeys(fixture(t, "documents.list.response.json"))) {
		t.Fatalf("list: %d %v", code, got)
	}
	results := got["results"].([]any)
	if len(results) != 2 || got["total"].(float64) < 7 || got["limit"].(float64) != 2 {
		t.Errorf("limit 2 of the ops pages: %d results, total %v", len(results), got["total"])
	}
	for _, r := range results {
		doc := r.(map[string]any)
		if doc["project"] != "kunora-ops" || len(doc) != 2 {
			t.Errorf("result %v", doc)
		}
	}
}

func TestFetchDocuments(t *testing.T) {
	s := newTestServer(t)
	body := `{"filter":[["status = working"],"project = kunora-kgent"],"fields":["path","status"],"limit":50}`
	code, got := callJSON(t, s, "POST", "/indexes/wiki_pages/documents/fetch", testMaster, body)
	if code != 200 || !reflect.DeepEqual(sortedKeys(got), sortedKeys(fixture(t, "documents.fetch.response.json"))) {
		t.Fatalf("fetch: %d %v", code, got)
	}
	results := got["results"].([]any)
	if len(results) < 3 || int(got["total"].(float64)) != len(results) {
		t.Errorf("kgent working drafts: %d results, total %v", len(results), got["total"])
	}
	first := results[0].(map[string]any)
	_, got = callJSON(t, s, "POST", "/indexes/wiki_pages/documents/fetch", testMaster, `{"ids":["`+idOf(t, s, first["path"].(string))+`"]}`)
	if got["total"].(float64) != 1 {
		t.Errorf("fetch by id: %v", got)
	}
}

func idOf(t *testing.T, s *Server, path string) string {
	t.Helper()
	for _, d := range s.defaultIndex().docs {
		if p, _ := d.get("path"); p == path {
			id, _ := d.get("id")
			return id.(string)
		}
	}
	t.Fatalf("no document at %s", path)
	return ""
}

func TestDocumentErrors(t *testing.T) {
	s := newTestServer(t)
	notFilterable := fixture(t, "error.invalid_document_filter.not_filterable.json")
	code, got := callJSON(t, s, "GET", "/indexes/wiki_pages/documents?filter=doggo%3Dbernese", testMaster, "")
	msg, _ := got["message"].(string)
	if code != 400 || got["code"] != notFilterable["code"] || got["link"] != notFilterable["link"] ||
		!strings.HasPrefix(msg, "Attribute `doggo` is not filterable.") || !strings.HasSuffix(msg, "\n1:6 doggo=bernese") {
		t.Errorf("not filterable: %d %v", code, got)
	}
	cases := []struct{ method, target, body, code string }{
		{"GET", "/indexes/wiki_pages/documents?limit=doggo", "", "invalid_document_limit"},
		{"GET", "/indexes/wiki_pages/documents?doggo=1", "", "bad_request"},
		{"GET", "/indexes/wiki_pages/documents?sort=title:asc", "", "invalid_document_sort"},
		{"POST", "/indexes/wiki_pages/documents/fetch", `{"doggo":1}`, "bad_request"},
		{"POST", "/indexes/wiki_pages/documents/fetch", `{"offset":"x"}`, "invalid_document_offset"},
		{"POST", "/indexes/wiki_pages/documents/fetch", `{"filter":"status = "}`, "invalid_document_filter"},
		{"GET", "/indexes/wiki_pages/documents/x?doggo=1", "", "bad_request"},
	}
	for _, c := range cases {
		code, got := callJSON(t, s, c.method, c.target, testMaster, c.body)
		if code != 400 || got["code"] != c.code {
			t.Errorf("%s %s %s: %d %v, want %s", c.method, c.target, c.body, code, got, c.code)
		}
	}
}

// defaultIndex is the index the server was started with, as it is now.
func (s *Server) defaultIndex() *index {
	ix, _ := s.indexes.get(s.defaultUID)
	return ix
}
