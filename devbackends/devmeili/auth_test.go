package devmeili

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func TestSearchKeyIsDerivedFromTheMasterKey(t *testing.T) {
	want := fixture(t, "key.create.response.test-snapshot.json")
	if got := deriveKey("MASTER_KEY", want["uid"].(string)); got != want["key"] {
		t.Errorf("deriveKey = %s, want %s", got, want["key"])
	}
	s := newTestServer(t)
	uid, key := s.SearchKey()
	if key != deriveKey(testMaster, uid) {
		t.Error("SearchKey is not HMAC(master key, uid)")
	}
}

func TestNewNeedsAMasterKey(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without master key must fail")
	}
	if _, err := New(Config{MasterKey: "k", Index: "bad index"}); err == nil {
		t.Error("New with an invalid index uid must fail")
	}
}

// TestAuthorizationMatrix: the master key opens everything, the search key
// only search, tenant tokens only search, and header mistakes fail like the
// engine's (docs/backends.md, Meilisearch wire details: Authorization).
func TestAuthorizationMatrix(t *testing.T) {
	s := newTestServer(t)
	_, searchKey := s.SearchKey()
	token := tenantToken(t, s, `["*"]`)
	routes := []struct{ method, target, body string }{
		{"POST", "/indexes/wiki_pages/search", `{"q":"memory"}`},
		{"GET", "/indexes/wiki_pages/search?q=memory", ""},
		{"GET", "/indexes/wiki_pages/documents", ""},
		{"POST", "/indexes/wiki_pages/documents/fetch", `{}`},
		{"GET", "/indexes/wiki_pages", ""},
		{"GET", "/version", ""},
		{"GET", "/keys", ""},
		{"GET", "/_dev/requests", ""},
	}
	creds := []struct {
		name, header string
		search       int // status on the two search routes
		other        int // status elsewhere
	}{
		{"master", "Bearer " + testMaster, 200, 200},
		{"search key", "Bearer " + searchKey, 200, 403},
		{"tenant token", "Bearer " + token, 200, 403},
		{"unknown key", "Bearer not-a-key", 403, 403},
		{"empty bearer", "Bearer ", 403, 403},
		{"bare Bearer", "Bearer", 403, 403},
		{"lower-case scheme", "bearer " + testMaster, 401, 401},
		{"basic scheme", "Basic " + testMaster, 401, 401},
		{"no header", "", 401, 401},
	}
	for _, c := range creds {
		for i, r := range routes {
			want := c.other
			if i < 2 {
				want = c.search
			}
			code := send(t, s, r.method, r.target, c.header, r.body)
			if code != want {
				t.Errorf("%s on %s %s: %d, want %d", c.name, r.method, r.target, code, want)
			}
		}
	}
}

func send(t *testing.T, s *Server, method, target, authorization, body string) int {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rr := httptest.NewRecorder()
	s.ServeHTTP(rr, req)
	return rr.Code
}

func TestAuthErrorsMatchTheEngineFixtures(t *testing.T) {
	s := newTestServer(t)
	_, searchKey := s.SearchKey()
	code, got := callJSON(t, s, "POST", "/indexes/wiki_pages/search", "", `{}`)
	if code != 401 || !reflect.DeepEqual(got, fixture(t, "error.missing_authorization_header.json")) {
		t.Errorf("no header: %d %v", code, got)
	}
	code, got = callJSON(t, s, "GET", "/indexes/wiki_pages/documents", searchKey, "")
	if code != 403 || !reflect.DeepEqual(got, fixture(t, "error.invalid_api_key.json")) {
		t.Errorf("search key on documents: %d %v", code, got)
	}
}

func TestHealthNeedsNoKeyAndVersionAdmitsToBeingADevServer(t *testing.T) {
	s := newTestServer(t)
	if code := send(t, s, "GET", "/health", "", ""); code != 200 {
		t.Errorf("health without key: %d", code)
	}
	_, got := callJSON(t, s, "GET", "/version", testMaster, "")
	if !reflect.DeepEqual(sortedKeys(got), sortedKeys(fixture(t, "version.response.json"))) || got["pkgVersion"] != "1.50.0-wikigate-dev" {
		t.Errorf("version: %v", got)
	}
}

func TestKeysListsTheDefaultSearchKey(t *testing.T) {
	s := newTestServer(t)
	uid, key := s.SearchKey()
	code, got := callJSON(t, s, "GET", "/keys", testMaster, "")
	results, _ := got["results"].([]any)
	if code != 200 || len(results) != 1 || got["total"].(float64) != 1 {
		t.Fatalf("keys: %d %v", code, got)
	}
	k := results[0].(map[string]any)
	if k["uid"] != uid || k["key"] != key || k["name"] != "Default Search API Key" ||
		!reflect.DeepEqual(k["actions"], []any{"search"}) || !reflect.DeepEqual(k["indexes"], []any{"*"}) {
		t.Errorf("key %v", k)
	}
	if k["expiresAt"] != nil {
		t.Errorf("expiresAt = %v, want null", k["expiresAt"])
	}
}

func TestMasterKeyIsNotASearchKeyForOtherIndexes(t *testing.T) {
	s := newTestServer(t)
	_, searchKey := s.SearchKey()
	// The search key covers every index ("*"); a missing index is a 404.
	if code := send(t, s, "POST", "/indexes/other/search", "Bearer "+searchKey, `{}`); code != http.StatusNotFound {
		t.Errorf("search key on another index: %d, want 404", code)
	}
}
