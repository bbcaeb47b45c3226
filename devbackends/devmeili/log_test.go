package devmeili

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRequestLogRecordsEveryRequestWithoutSecrets(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	token := tenantToken(t, s, `{"wiki_pages":{"filter":"status = approved"}}`)
	send(t, s, "POST", "/indexes/wiki_pages/search", "", `{"q":"memory"}`)
	send(t, s, "POST", "/indexes/wiki_pages/search", "Bearer wrong", `{"q":"memory"}`)
	search(t, s, key, `{"q":"agent memory","filter":["project = kunora-kgent"]}`)
	search(t, s, token, `{"q":"redis"}`)
	send(t, s, "GET", "/keys", "Bearer "+testMaster, "")
	send(t, s, "GET", "/nope", "", "")

	got := s.Requests()
	want := []LoggedRequest{
		{Method: "POST", Path: "/indexes/wiki_pages/search", Auth: "none", Index: "wiki_pages", Status: 401},
		{Method: "POST", Path: "/indexes/wiki_pages/search", Auth: "invalid", Index: "wiki_pages", Status: 403},
		{Method: "POST", Path: "/indexes/wiki_pages/search", Auth: "api_key", Index: "wiki_pages", Query: "agent memory", Filter: `["project = kunora-kgent"]`, Status: 200},
		{Method: "POST", Path: "/indexes/wiki_pages/search", Auth: "tenant_token", Index: "wiki_pages", Query: "redis", TenantFilter: `"status = approved"`, Status: 200},
		{Method: "GET", Path: "/keys", Auth: "master", Status: 200},
		{Method: "GET", Path: "/nope", Auth: "none", Status: 404},
	}
	if len(got) != len(want) {
		t.Fatalf("logged %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !got[i].Time.Equal(fixedNow) {
			t.Errorf("entry %d time %v", i, got[i].Time)
		}
		got[i].Time = time.Time{}
		if got[i] != want[i] {
			t.Errorf("entry %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
	raw, _ := json.Marshal(got)
	for _, secret := range []string{testMaster, key, token} {
		if strings.Contains(string(raw), secret) {
			t.Error("the request log contains a secret")
		}
	}
}

func TestRequestLogIsBounded(t *testing.T) {
	s, err := New(Config{MasterKey: testMaster, LogSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		send(t, s, "GET", p, "", "")
	}
	got := s.Requests()
	if len(got) != 3 || got[0].Path != "/c" || got[2].Path != "/e" {
		t.Errorf("ring of 3 after 5 requests: %+v", got)
	}
}

func TestDevRequestsRoute(t *testing.T) {
	s := newTestServer(t)
	send(t, s, "GET", "/health", "", "")
	code, got := callJSON(t, s, "GET", "/_dev/requests", testMaster, "")
	entries, _ := got["requests"].([]any)
	if code != 200 || len(entries) != 1 || entries[0].(map[string]any)["path"] != "/health" {
		t.Fatalf("dev requests: %d %v", code, got)
	}
	if code, _ := call(t, s, "DELETE", "/_dev/requests", testMaster, ""); code != 204 {
		t.Errorf("clear: %d", code)
	}
	if rest := s.Requests(); len(rest) != 1 || rest[0].Method != "DELETE" {
		t.Errorf("after clearing, only the clearing request remains: %+v", rest)
	}
}
