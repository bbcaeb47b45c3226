package devmeili

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestServesOverHTTP runs the handler behind a real listener, as wikigate's
// Meilisearch client will reach it.
func TestServesOverHTTP(t *testing.T) {
	s := newTestServer(t)
	ts := httptest.NewServer(s)
	defer ts.Close()
	_, key := s.SearchKey()
	req, err := http.NewRequest("POST", ts.URL+"/indexes/wiki_pages/search", strings.NewReader(`{"q":"redis","limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || len(hitsOf(t, body)) != 3 {
		t.Errorf("status %d, content type %q, body %v", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

func TestConcurrentRequestsAreSafe(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("POST", "/indexes/wiki_pages/search", strings.NewReader(`{"q":"pésti memory","attributesToHighlight":["*"]}`))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			s.ServeHTTP(httptest.NewRecorder(), req)
			_ = s.Requests()
		}()
	}
	wg.Wait()
	if n := len(s.Requests()); n != 8 {
		t.Errorf("logged %d requests, want 8", n)
	}
}
