package devmeili

import (
	"net/http"
	"testing"
)

func TestEmptyServerHasNoIndexUntilOneIsCreated(t *testing.T) {
	s, err := New(Config{MasterKey: testMaster, Empty: true})
	if err != nil {
		t.Fatal(err)
	}
	_, searchKey := s.SearchKey()
	for _, c := range []struct{ method, target, key, body string }{
		{http.MethodGet, "/indexes/wiki_pages", testMaster, ""},
		{http.MethodGet, "/indexes/wiki_pages/settings", testMaster, ""},
		{http.MethodPost, "/indexes/wiki_pages/search", searchKey, `{"q":"agent memory"}`},
	} {
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			code, body := callJSON(t, s, c.method, c.target, c.key, c.body)
			if code != http.StatusNotFound || body["code"] != "index_not_found" {
				t.Errorf("on an empty server: %d %v", code, body)
			}
		})
	}
	if code, body := callJSON(t, s, http.MethodPost, "/indexes", testMaster, `{"uid":"wiki_pages","primaryKey":"id"}`); code != http.StatusAccepted {
		t.Fatalf("creating the index: %d %v", code, body)
	}
	code, body := search(t, s, searchKey, `{"q":"agent memory"}`)
	if hits, _ := body["hits"].([]any); code != http.StatusOK || len(hits) != 0 {
		t.Fatalf("search of the created, empty index: %d %v", code, body)
	}
}

func TestSampleServerStartsWithTheSampleWiki(t *testing.T) {
	code, body := callJSON(t, newTestServer(t), http.MethodGet, "/indexes/wiki_pages/documents?limit=1", testMaster, "")
	if code != http.StatusOK || body["total"] != 37.0 {
		t.Fatalf("sample index: %d, total %v, want the sample wiki's 37 pages", code, body["total"])
	}
}
