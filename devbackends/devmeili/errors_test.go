package devmeili

import (
	"net/http"
	"testing"
)

// TestErrorBodiesAreTheEnginesBytes: an error goes out as the engine writes
// it, members in the order message, code, type, link, so a client compares
// it byte for byte with Meilisearch's.
func TestErrorBodiesAreTheEnginesBytes(t *testing.T) {
	s := newTestServer(t)
	for _, c := range []struct {
		bearer, target string
		status         int
		body           string
	}{
		{"", "/indexes/pages/search", http.StatusUnauthorized, `{"message":"The Authorization header is missing. It must use the bearer authorization method.","code":"missing_authorization_header","type":"auth","link":"https://docs.meilisearch.com/errors#missing_authorization_header"}`},
		{"wrong", "/indexes/pages/search", http.StatusForbidden, `{"message":"The provided API key is invalid.","code":"invalid_api_key","type":"auth","link":"https://docs.meilisearch.com/errors#invalid_api_key"}`},
		{testMaster, "/indexes/nope/search", http.StatusNotFound, "{\"message\":\"Index `nope` not found.\",\"code\":\"index_not_found\",\"type\":\"invalid_request\",\"link\":\"https://docs.meilisearch.com/errors#index_not_found\"}"},
	} {
		status, body := call(t, s, http.MethodPost, c.target, c.bearer, `{"q":"x"}`)
		if status != c.status || string(body) != c.body {
			t.Errorf("%s with %q: %d %s\nwant %d %s", c.target, c.bearer, status, body, c.status, c.body)
		}
	}
}
