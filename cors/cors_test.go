package cors

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func request(method, path, origin string, preflight bool) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if preflight {
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "content-type")
	}
	return r
}

func TestPreflightFromAnAllowedOrigin(t *testing.T) {
	p := New(Config{Origins: []string{"https://docs.example.com"}, MaxAge: 5 * time.Minute})
	w := httptest.NewRecorder()
	if !p.Handle(w, request(http.MethodOptions, "/answer/ask", "https://DOCS.example.com", true)) {
		t.Fatal("preflight not answered")
	}
	h := w.Header()
	if w.Code != 204 || h.Get("Access-Control-Allow-Origin") != "https://DOCS.example.com" ||
		h.Get("Access-Control-Allow-Methods") != "GET, POST" || h.Get("Access-Control-Max-Age") != "300" ||
		h.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type, X-Session-Token, X-Request-Id, X-Meilisearch-Client, Last-Event-ID" ||
		h.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("%d %v", w.Code, h)
	}
}

func TestPreflightFromAnotherOriginIsRefused(t *testing.T) {
	p := New(Config{Origins: []string{"https://docs.example.com"}})
	w := httptest.NewRecorder()
	if !p.Handle(w, request(http.MethodOptions, "/answer/ask", "https://evil.example", true)) || w.Code != 403 {
		t.Fatalf("refused preflight: %d", w.Code)
	}
	for k := range w.Header() {
		if len(k) > 14 && k[:14] == "Access-Control" {
			t.Fatalf("CORS header %s on a refusal", k)
		}
	}
}

func TestOnlyCoveredPaths(t *testing.T) {
	p := New(Config{Origins: []string{"https://docs.example.com"}, Credentials: true})
	w := httptest.NewRecorder()
	if p.Handle(w, request(http.MethodOptions, "/agent/tools/ask", "https://docs.example.com", true)) || len(w.Header()) != 0 {
		t.Fatalf("/agent/ is not covered by default: %v", w.Header())
	}
	w = httptest.NewRecorder()
	if p.Handle(w, request(http.MethodPost, "/answer/ask", "https://docs.example.com", false)) {
		t.Fatal("an actual request must go on to the gate")
	}
	if w.Header().Get("Access-Control-Allow-Origin") != "https://docs.example.com" || w.Header().Get("Access-Control-Allow-Credentials") != "true" ||
		w.Header().Get("Access-Control-Expose-Headers") != "X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, Idempotent-Replayed, Wikigate-Stream-Url" {
		t.Fatalf("actual request headers: %v", w.Header())
	}
	agents := New(Config{Origins: []string{"*"}, Paths: []string{"/answer/", "/agent/"}})
	w = httptest.NewRecorder()
	if !agents.Handle(w, request(http.MethodOptions, "/agent/tools/ask", "https://any.example", true)) || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("paths option: %v", w.Header())
	}
	var none *Policy
	if none.Handle(httptest.NewRecorder(), request(http.MethodOptions, "/answer/ask", "https://docs.example.com", true)) {
		t.Fatal("no cors block answers nothing")
	}
}

// A prefix written without its trailing slash covers whole segments only:
// /answer names /answer and /answer/…, not a route that merely starts
// with the same letters.
func TestPathPrefixMatchesWholeSegments(t *testing.T) {
	p := New(Config{Origins: []string{"https://docs.example.com"}, Paths: []string{"/answer"}})
	for path, covered := range map[string]bool{
		"/answer": true, "/answer/": true, "/answer/ask": true,
		"/answerx": false, "/answers/ask": false, "/agent/tools/ask": false,
	} {
		w := httptest.NewRecorder()
		answered := p.Handle(w, request(http.MethodOptions, path, "https://docs.example.com", true))
		if answered != covered || (w.Header().Get("Access-Control-Allow-Origin") != "") != covered {
			t.Errorf("%s: answered %v, headers %v; want covered %v", path, answered, w.Header(), covered)
		}
	}
}
