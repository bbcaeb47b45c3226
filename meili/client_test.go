package meili

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/wikigate/wikigate/protocol"
)

const testKey = "search-key-0123456789"

// fixture reads a copied Meilisearch payload, replacing the insta test
// redactions with values of the real types (testdata/README.md).
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(raw), `"[ignored]"`, "3")
	s = strings.ReplaceAll(s, `"[uuid]"`, `"0199a3a5-6d7e-7a3c-9b1e-2f4d5c6b7a80"`)
	return []byte(s)
}

// recorded is what the fake Meilisearch saw of one request.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// fakeMeili is an httptest server on 127.0.0.1 playing Meilisearch: it
// records each request and answers with respond.
type fakeMeili struct {
	*httptest.Server
	mu   sync.Mutex
	seen []recorded
}

func serveMeili(t *testing.T, respond http.HandlerFunc) *fakeMeili {
	t.Helper()
	f := &fakeMeili{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
		f.mu.Unlock()
		respond(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeMeili) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.seen...)
}

// answer replies with status and a JSON body.
func answer(status int, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
}

func newTestClient(t *testing.T, url string, change ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{URL: url, APIKey: testKey, Index: "pages"}
	for _, ch := range change {
		ch(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var testScope = protocol.Scope{
	Projects: []string{"kunora-kgent"},
	Paths:    []string{"publish/system/components/kunora-kgent"},
	Version:  "main",
}

func TestSearchDecodesOffsetResponse(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "search.response.json")))
	resp, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Query: "american ", Filter: Filter(testScope)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) != 2 || resp.Hits[0].ID != "2770" || resp.Hits[0].Title != "American Pie 2" || resp.Hits[1].ID != "190859" {
		t.Errorf("hits = %+v", resp.Hits)
	}
	if resp.Query != "american " || resp.ProcessingTimeMs != 35 || resp.Limit != 2 || resp.Offset != 0 {
		t.Errorf("response = %+v", resp)
	}
	if resp.EstimatedTotalHits != 976 || resp.TotalHits != 0 || resp.Total() != 976 {
		t.Errorf("totals = %d/%d/%d, want estimated 976", resp.EstimatedTotalHits, resp.TotalHits, resp.Total())
	}
}

func TestSearchDecodesPaginatedResponse(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "search.paginated.response.test-snapshot.json")))
	resp, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Query: "doc", Filter: Filter(testScope)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) != 1 || resp.Hits[0].ID != "2" || resp.Hits[0].Content != "This is the second doc." {
		t.Errorf("hits = %+v", resp.Hits)
	}
	if resp.TotalHits != 1 || resp.Total() != 1 || resp.Query != "doc" {
		t.Errorf("response = %+v", resp)
	}
}

func TestSearchDecodesPageHit(t *testing.T) {
	body := `{"hits":[{"id":"abc","path":"publish/system/components/kunora-kgent/memory.md",
		"url":"/system/components/kunora-kgent/memory","title":"Agent memory","project":"kunora-kgent",
		"version":"main","status":"approved","pathPrefixes":["publish","publish/system"],
		"headings":["Agent memory","Limits"],"content":"Memory is kept per session.","updatedAt":"2026-10-02T00:00:00Z",
		"_formatted":{"id":"abc","content":"…kept per session.","updatedAt":"2026-10-02T00:00:00Z","rank":"3"},
		"_rankingScore":0.8125}],
		"query":"memory","processingTimeMs":1,"limit":10,"offset":0,"estimatedTotalHits":1,"requestUid":"0199a3a5-6d7e-7a3c-9b1e-2f4d5c6b7a80"}`
	srv := serveMeili(t, answer(200, []byte(body)))
	resp, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Query: "memory", Filter: Filter(testScope)})
	if err != nil {
		t.Fatal(err)
	}
	want := Hit{
		ID: "abc", Path: "publish/system/components/kunora-kgent/memory.md", URL: "/system/components/kunora-kgent/memory",
		Title: "Agent memory", Project: "kunora-kgent", Version: "main", Status: "approved",
		PathPrefixes: []string{"publish", "publish/system"}, Headings: []string{"Agent memory", "Limits"},
		Content:      "Memory is kept per session.",
		Formatted:    Formatted{Content: "…kept per session."},
		RankingScore: 0.8125,
	}
	if len(resp.Hits) != 1 || !reflect.DeepEqual(resp.Hits[0], want) {
		t.Errorf("hit = %+v\nwant  %+v", resp.Hits, want)
	}
}

func TestSearchSendsExactRequest(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "search.response.json")))
	c := newTestClient(t, srv.URL+"/meili/")
	_, err := c.Search(t.Context(), SearchParams{
		Query: "agent memory", Filter: Filter(testScope), Limit: 5, Offset: 10,
		AttributesToRetrieve: []string{"path", "title"}, AttributesToCrop: []string{"content"},
		CropLength: 30, CropMarker: "…", ShowRankingScore: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/meili/indexes/pages/search" {
		t.Errorf("request = %s %s, want POST /meili/indexes/pages/search", r.Method, r.Path)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	want := map[string]any{
		"q":      "agent memory",
		"filter": `project IN ["kunora-kgent"] AND version = "main" AND status IN ["approved"] AND pathPrefixes IN ["publish/system/components/kunora-kgent"]`,
		"limit":  5.0, "offset": 10.0,
		"attributesToRetrieve": []any{"path", "title"}, "attributesToCrop": []any{"content"},
		"cropLength": 30.0, "cropMarker": "…", "showRankingScore": true,
	}
	assertJSONBody(t, r.Body, want)
}

func TestSearchLeavesDefaultsOut(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "search.response.json")))
	if _, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Filter: `path IN ["a"]`}); err != nil {
		t.Fatal(err)
	}
	assertJSONBody(t, srv.requests()[0].Body, map[string]any{"filter": `path IN ["a"]`})
}

func assertJSONBody(t *testing.T, body []byte, want map[string]any) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %s\nwant   %v", body, want)
	}
}

func TestSearchRefusesCallerBugs(t *testing.T) {
	srv := serveMeili(t, func(http.ResponseWriter, *http.Request) { t.Error("request sent") })
	c := newTestClient(t, srv.URL)
	for name, p := range map[string]SearchParams{
		"no filter":      {Query: "everything"},
		"negative limit": {Filter: "a = b", Limit: -1},
	} {
		_, err := c.Search(t.Context(), p)
		var me *Error
		if err == nil || errors.As(err, &me) {
			t.Errorf("%s: err = %v, want a plain error", name, err)
		}
	}
}

func TestSearchWithoutKeySendsNoAuthorization(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "search.response.json")))
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.APIKey = "" })
	if _, err := c.Search(t.Context(), SearchParams{Filter: "a = b"}); err != nil {
		t.Fatal(err)
	}
	if h, ok := srv.requests()[0].Header["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestSearchSendsTenantToken(t *testing.T) {
	const tenantKey = "aeb94973e0b6e912d94165430bbe87dee91a7c4f891ce19050c3910ec96977e9"
	const tenantUID = "00000000-0000-0000-0000-000000000000"
	fixed := time.Unix(1_800_000_000, 0)
	now = func() time.Time { return fixed }
	t.Cleanup(func() { now = time.Now })

	srv := serveMeili(t, answer(200, fixture(t, "search.response.json")))
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.TenantKey, cfg.TenantKeyUID = tenantKey, tenantUID })
	filter := Filter(testScope)
	if _, err := c.Search(t.Context(), SearchParams{Query: "x", Filter: filter}); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || bearer == testKey {
		t.Fatalf("Authorization = %q, want a tenant token", r.Header.Get("Authorization"))
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(bearer, claims, func(*jwt.Token) (any, error) { return []byte(tenantKey), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return fixed }))
	if err != nil {
		t.Fatalf("tenant token does not verify: %v", err)
	}
	want := jwt.MapClaims{
		"searchRules": map[string]any{"pages": map[string]any{"filter": filter}},
		"apiKeyUid":   tenantUID,
		"exp":         float64(fixed.Add(time.Minute).Unix()),
	}
	if !reflect.DeepEqual(claims, want) {
		t.Errorf("claims = %v\nwant     %v", claims, want)
	}
	var body map[string]any
	json.Unmarshal(r.Body, &body)
	if body["filter"] != filter {
		t.Errorf("request filter = %v, want the scope filter as well", body["filter"])
	}
}

func TestHealth(t *testing.T) {
	srv := serveMeili(t, answer(200, fixture(t, "health.response.json")))
	if err := newTestClient(t, srv.URL).Health(t.Context()); err != nil {
		t.Fatalf("Health = %v", err)
	}
	r := srv.requests()[0]
	if r.Method != http.MethodGet || r.Path != "/health" {
		t.Errorf("request = %s %s, want GET /health", r.Method, r.Path)
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("health sent the key; /health needs none")
	}
}

func TestHealthFailures(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   ErrorKind
	}{
		{"must restart", 500, `{"status":"mustRestart"}`, Rejected},
		{"unknown status", 200, `{"status":"degraded"}`, Rejected},
		{"meili error", 503, `{"message":"busy","code":"too_many_search_requests","type":"system","link":""}`, Rejected},
		{"html", 200, `<html>ok</html>`, BadResponse},
		{"proxy error page", 502, `<html>bad gateway</html>`, BadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveMeili(t, answer(tt.status, []byte(tt.body)))
			err := newTestClient(t, srv.URL).Health(t.Context())
			assertKind(t, err, tt.want, tt.status)
		})
	}
}

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"empty url", func(c *Config) { c.URL = "" }},
		{"ftp url", func(c *Config) { c.URL = "ftp://meili:7700" }},
		{"no host", func(c *Config) { c.URL = "http://" }},
		{"credentials in url", func(c *Config) { c.URL = "http://user:secret@meili:7700" }},
		{"query in url", func(c *Config) { c.URL = "http://meili:7700/?key=x" }},
		{"empty index", func(c *Config) { c.Index = "" }},
		{"bad index", func(c *Config) { c.Index = "pages/../keys" }},
		{"long index", func(c *Config) { c.Index = strings.Repeat("a", 513) }},
		{"tenant key without uid", func(c *Config) { c.TenantKey = "k" }},
		{"tenant uid without key", func(c *Config) { c.TenantKeyUID = "00000000-0000-0000-0000-000000000000" }},
		{"tenant uid not a uuid", func(c *Config) { c.TenantKey, c.TenantKeyUID = "k", "uid" }},
		{"negative timeout", func(c *Config) { c.Timeout = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{URL: "http://127.0.0.1:7700", APIKey: "secret-key", Index: "pages"}
			tt.change(&cfg)
			if _, err := New(cfg); err == nil {
				t.Fatal("New accepted the config")
			} else if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q leaks a secret", err)
			}
		})
	}
}

func TestNewAppliesDefaults(t *testing.T) {
	c, err := New(Config{URL: "https://search.example", Index: "wiki_pages-2"})
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.Timeout != DefaultTimeout || c.cfg.MaxResponseBytes != DefaultMaxResponseBytes || c.http == nil {
		t.Errorf("defaults not applied: %+v", c.cfg)
	}
	if c.searchURL != "https://search.example/indexes/wiki_pages-2/search" {
		t.Errorf("search url = %q", c.searchURL)
	}
}

// TestFormattedTextIgnoresNonStrings: Meilisearch stringifies numbers in
// _formatted, and a field of another type must not fail the response.
func TestFormattedTextIgnoresNonStrings(t *testing.T) {
	for body, want := range map[string]FormattedText{
		`{"_formatted":{"content":"crop"}}`: "crop",
		`{"_formatted":{"content":12}}`:     "",
		`{"_formatted":{"content":null}}`:   "",
		`{"_formatted":{"content":["a"]}}`:  "",
		`{}`:                                "",
	} {
		var h Hit
		if err := json.Unmarshal([]byte(body), &h); err != nil || h.Formatted.Content != want {
			t.Errorf("%s: got %q, %v", body, h.Formatted.Content, err)
		}
	}
}
