package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandlerAnswersSearchesWithTheBody(t *testing.T) {
	srv := httptest.NewServer(handler([]byte(`{"hits":[]}`)))
	defer srv.Close()
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{http.MethodPost, "/indexes/wiki_pages/search", 200, `{"hits":[]}`},
		{http.MethodGet, "/health", 200, `{"status":"available"}`},
		{http.MethodGet, "/indexes/wiki_pages/search", 404, ""},
		{http.MethodPost, "/indexes/wiki_pages/documents", 404, ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"q":"x"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.body != "" && string(body) != tc.body) {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.body)
		}
	}
}
