package devragflow

import (
	"net/http"
	"testing"
)

func TestAuth(t *testing.T) {
	s := newTestServer(t)
	unauthorized := fixture(t, "error.invalid_key.json")
	tests := []struct {
		name   string
		header string
		ok     bool
	}{
		{"no header", "", false},
		{"wrong key", "Bearer ragflow-wrong", false},
		{"bearer", "Bearer " + testKey, true},
		{"bearer lowercase", "bearer " + testKey, true},
		{"bearer uppercase extra spaces", "BEARER   " + testKey, true},
		{"raw token without prefix", testKey, true},
		{"other scheme", "Token " + testKey, false},
		{"key as prefix only", "Bearer " + testKey + "x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := call(t, s, http.MethodGet, "/api/v1/datasets", nil, tc.header)
			if !tc.ok {
				if rec.Code != http.StatusUnauthorized {
					t.Fatalf("status = %d, want 401", rec.Code)
				}
				sameJSON(t, decode(t, rec), unauthorized)
				return
			}
			if out := decode(t, rec); rec.Code != http.StatusOK || out["code"] != 0.0 {
				t.Fatalf("status %d body %v, want 200 code 0", rec.Code, out)
			}
		})
	}
}

func TestAuthCoversEveryAPIRoute(t *testing.T) {
	s := newTestServer(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/retrieval"},
		{http.MethodPost, "/api/v1/chat/completions"},
		{http.MethodGet, "/api/v1/datasets/" + dsKgentMain + "/documents"},
		{http.MethodGet, "/_dev/requests"},
		{http.MethodDelete, "/_dev/requests"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := call(t, s, tc.method, tc.path, map[string]any{}, "Bearer nope")
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("status = %d, want 401", rec.Code)
			}
		})
	}
}

func TestPublicSystemRoutes(t *testing.T) {
	s := newTestServer(t)
	rec := call(t, s, http.MethodGet, "/api/v1/system/healthz", nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz status = %d", rec.Code)
	}
	sameJSON(t, decode(t, rec), fixture(t, "healthz.response.json"))

	rec = call(t, s, http.MethodGet, "/api/v1/system/ping", nil, "")
	if rec.Code != http.StatusOK || rec.Body.String() != "pong" {
		t.Errorf("ping = %d %q, want 200 pong", rec.Code, rec.Body.String())
	}

	rec = call(t, s, http.MethodGet, "/api/v1/system/version", nil, "")
	sameJSON(t, decode(t, rec), map[string]any{"code": 0, "message": "success", "data": "v0.27.0-wikigate-dev"})
}

// Quart matches the route before login_required runs, so an unknown path
// or a wrong method is reported even without a key.
func TestRoutingPrecedesAuth(t *testing.T) {
	s := newTestServer(t)
	rec := call(t, s, http.MethodGet, "/api/v1/nope", nil, "")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status = %d, want 404", rec.Code)
	}
	sameJSON(t, decode(t, rec), fixture(t, "error.route_not_found.json"))

	rec = call(t, s, http.MethodGet, "/api/v1/retrieval", nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200", rec.Code)
	}
	sameJSON(t, decode(t, rec), map[string]any{"code": 100, "data": nil,
		"message": "<MethodNotAllowed '405: Method Not Allowed'>"})
}
