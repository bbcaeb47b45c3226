package devmeili

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

const testMaster = "test-master-key"

// fixedNow is the clock of test servers, so token expiry is deterministic.
var fixedNow = time.Date(2026, 10, 6, 12, 0, 0, 0, time.UTC)

func newTestServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(Config{MasterKey: testMaster})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.now = func() time.Time { return fixedNow }
	return s
}

// call sends one request through the server; body "" sends none, and a
// non-empty body is sent as JSON.
func call(t *testing.T, s *Server, method, target, bearer, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	rr := httptest.NewRecorder()
	s.ServeHTTP(rr, req)
	return rr.Code, rr.Body.Bytes()
}

func callJSON(t *testing.T, s *Server, method, target, bearer, body string) (int, map[string]any) {
	t.Helper()
	code, raw := call(t, s, method, target, bearer, body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: response is not a JSON object: %v: %s", method, target, err, raw)
	}
	return code, out
}

func search(t *testing.T, s *Server, bearer, body string) (int, map[string]any) {
	t.Helper()
	return callJSON(t, s, http.MethodPost, "/indexes/wiki_pages/search", bearer, body)
}

func fixture(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func hitsOf(t *testing.T, resp map[string]any) []map[string]any {
	t.Helper()
	raw, ok := resp["hits"].([]any)
	if !ok {
		t.Fatalf("no hits array in %v", resp)
	}
	hits := make([]map[string]any, len(raw))
	for i, h := range raw {
		hits[i] = h.(map[string]any)
	}
	return hits
}

// signToken mints a compact JWS the way a tenant-token library does.
func signToken(t *testing.T, alg, key, payload string) string {
	t.Helper()
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + alg + `","typ":"JWT"}`))
	body := base64.RawURLEncoding.EncodeToString([]byte(payload))
	newHash, ok := hmacAlgorithms[alg]
	if !ok {
		return header + "." + body + ".c2ln"
	}
	mac := hmac.New(newHash, []byte(key))
	mac.Write([]byte(header + "." + body))
	return header + "." + body + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// tenantToken mints a token for the server's search key with the given
// searchRules JSON and extra claims (each `"k":v`).
func tenantToken(t *testing.T, s *Server, rules string, extra ...string) string {
	t.Helper()
	uid, key := s.SearchKey()
	payload := `{"searchRules":` + rules + `,"apiKeyUid":"` + uid + `"`
	for _, e := range extra {
		payload += "," + e
	}
	return signToken(t, "HS256", key, payload+"}")
}
