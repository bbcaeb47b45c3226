package meili

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// assertKind checks err is an *Error of kind want and that what the caller
// would see is a generic search_unavailable with the right status.
func assertKind(t *testing.T, err error, want ErrorKind, httpStatus int) *Error {
	t.Helper()
	var me *Error
	if !errors.As(err, &me) {
		t.Fatalf("err = %v (%T), want *meili.Error", err, err)
	}
	if me.Kind != want {
		t.Errorf("kind = %s, want %s (%v)", me.Kind, want, me)
	}
	if me.HTTPStatus != httpStatus {
		t.Errorf("HTTP status = %d, want %d", me.HTTPStatus, httpStatus)
	}
	pe := me.ProtocolError()
	wantStatus, wantMsg := 503, "search backend is unavailable"
	if want == BadResponse {
		wantStatus, wantMsg = 502, "search backend returned an invalid response"
	}
	if pe.Code != protocol.CodeSearchUnavailable || pe.Status != wantStatus || pe.Message != wantMsg {
		t.Errorf("protocol error = %+v, want search_unavailable %d %q", pe, wantStatus, wantMsg)
	}
	return me
}

func TestSearchClassifiesAnswers(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     []byte
		kind     ErrorKind
		meiliErr string
	}{
		{"invalid api key", 403, fixture(t, "error.invalid_api_key.json"), Rejected, "invalid_api_key"},
		{"tenant token signature", 403, fixture(t, "error.tenant_token.invalid_signature.json"), Rejected, "invalid_api_key"},
		{"index not found", 404, fixture(t, "error.index_not_found.json"), Rejected, "index_not_found"},
		{"invalid filter", 400, fixture(t, "error.invalid_search_filter.json"), Rejected, "invalid_search_filter"},
		{"html on 200", 200, []byte("<!doctype html><html><body>hello</body></html>"), BadResponse, ""},
		{"html proxy page on 502", 502, []byte("<html><body>502 Bad Gateway</body></html>"), BadResponse, ""},
		{"json without code on 500", 500, []byte(`{"error":"boom"}`), BadResponse, ""},
		{"truncated json", 200, []byte(`{"hits":[{"id":1,"title":"Amer`), BadResponse, ""},
		{"no hits", 200, []byte(`{"results":[],"query":""}`), BadResponse, ""},
		{"null hits", 200, []byte(`{"hits":null}`), BadResponse, ""},
		{"hits not an array", 200, []byte(`{"hits":{"id":1}}`), BadResponse, ""},
		{"hit not an object", 200, []byte(`{"hits":["a"]}`), BadResponse, ""},
		{"wrong field type", 200, []byte(`{"hits":[{"id":"a","path":7}]}`), BadResponse, ""},
		{"fractional id", 200, []byte(`{"hits":[{"id":1.5}]}`), BadResponse, ""},
		{"empty body", 200, nil, BadResponse, ""},
		{"trailing garbage", 200, []byte(`{"hits":[]} <html>`), BadResponse, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveMeili(t, answer(tt.status, tt.body))
			_, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Filter: Filter(testScope)})
			me := assertKind(t, err, tt.kind, tt.status)
			if me.MeiliCode != tt.meiliErr {
				t.Errorf("MeiliCode = %q, want %q", me.MeiliCode, tt.meiliErr)
			}
			if strings.ContainsAny(me.Detail, "\n\r") {
				t.Errorf("detail %q has line breaks", me.Detail)
			}
		})
	}
}

func TestSearchRejectedWithRetryAfter(t *testing.T) {
	// Shape of Meilisearch's 503 too_many_search_requests (docs/backends.md,
	// Meilisearch wire details: Errors: 503 responses carry Retry-After: 10);
	// written here, no upstream payload.
	body := []byte(`{"message":"Too many search requests running at the same time: 10. Retry after 10s.","code":"too_many_search_requests","type":"system","link":"https://docs.meilisearch.com/errors#too_many_search_requests"}`)
	srv := serveMeili(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "10")
		answer(503, body)(w, r)
	})
	_, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Filter: "a = b"})
	me := assertKind(t, err, Rejected, 503)
	if me.MeiliCode != "too_many_search_requests" || me.RetryAfter != 10*time.Second {
		t.Errorf("code %q retry after %v, want too_many_search_requests 10s", me.MeiliCode, me.RetryAfter)
	}
}

func TestSearchRefusesRedirect(t *testing.T) {
	srv := serveMeili(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/steal", http.StatusFound)
	})
	_, err := newTestClient(t, srv.URL).Search(t.Context(), SearchParams{Filter: "a = b"})
	assertKind(t, err, BadResponse, 302)
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no redirect followed)", n)
	}
}

func TestSearchOversizeBody(t *testing.T) {
	big := `{"hits":[],"query":"` + strings.Repeat("x", 2000) + `"}`
	for name, declareLength := range map[string]bool{"declared": true, "streamed": false} {
		t.Run(name, func(t *testing.T) {
			srv := serveMeili(t, func(w http.ResponseWriter, _ *http.Request) {
				if declareLength {
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				}
				w.WriteHeader(200)
				w.Write([]byte(big[:len(big)/2]))
				w.(http.Flusher).Flush() // no length: chunked
				w.Write([]byte(big[len(big)/2:]))
			})
			c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxResponseBytes = 1024 })
			_, err := c.Search(t.Context(), SearchParams{Filter: "a = b"})
			assertKind(t, err, BadResponse, 200)
		})
	}
}

func TestSearchAcceptsBodyAtLimit(t *testing.T) {
	body := []byte(`{"hits":[],"query":"q","processingTimeMs":0}`)
	srv := serveMeili(t, answer(200, body))
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxResponseBytes = int64(len(body)) })
	if _, err := c.Search(t.Context(), SearchParams{Filter: "a = b"}); err != nil {
		t.Fatalf("body of exactly the limit refused: %v", err)
	}
}

// hang is a handler that answers only when the client gives up or the test
// ends, so a timeout test is bounded either way.
func hang(t *testing.T) http.HandlerFunc {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

func TestSearchTimeout(t *testing.T) {
	srv := serveMeili(t, hang(t))
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond })
	_, err := c.Search(t.Context(), SearchParams{Filter: "a = b"})
	assertKind(t, err, Timeout, 0)
}

func TestSearchCallerDeadline(t *testing.T) {
	srv := serveMeili(t, hang(t))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := newTestClient(t, srv.URL).Search(ctx, SearchParams{Filter: "a = b"})
	assertKind(t, err, Timeout, 0)
}

func TestSearchCanceled(t *testing.T) {
	srv := serveMeili(t, answer(200, []byte(`{"hits":[]}`)))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := newTestClient(t, srv.URL).Search(ctx, SearchParams{Filter: "a = b"})
	assertKind(t, err, Unreachable, 0)
}

func TestSearchConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newTestClient(t, "http://"+addr)
	_, err = c.Search(t.Context(), SearchParams{Filter: "a = b"})
	assertKind(t, err, Unreachable, 0)
	assertKind(t, c.Health(t.Context()), Unreachable, 0)
}

func TestErrorsNeverCarryKeys(t *testing.T) {
	const tenantKey = "tenant-secret-value-0123456789abcdef"
	echo := func(w http.ResponseWriter, r *http.Request) {
		// A hostile or broken backend echoing the credential back.
		msg := "bad credential " + r.Header.Get("Authorization") + " and " + testKey + " and " + tenantKey
		answer(403, []byte(`{"message":"`+msg+`","code":"invalid_api_key","type":"auth","link":""}`))(w, r)
	}
	srv := serveMeili(t, echo)
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"api key", func(*Config) {}},
		{"tenant token", func(cfg *Config) {
			cfg.TenantKey, cfg.TenantKeyUID = tenantKey, "00000000-0000-0000-0000-000000000000"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, srv.URL, tt.change)
			_, err := c.Search(t.Context(), SearchParams{Filter: "a = b"})
			me := assertKind(t, err, Rejected, 403)
			reqs := srv.requests()
			bearer, _ := strings.CutPrefix(reqs[len(reqs)-1].Header.Get("Authorization"), "Bearer ")
			for _, secret := range []string{c.cfg.APIKey, c.cfg.TenantKey, bearer} {
				if secret != "" && strings.Contains(me.Error(), secret) {
					t.Errorf("error %q carries a secret", me.Error())
				}
			}
		})
	}
}
