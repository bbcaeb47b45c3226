package router

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// named answers with its name and the wildcard it was given.
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, name+":"+r.PathValue("id"))
	})
}

func testRouter(t testing.TB) *Router {
	t.Helper()
	rt, err := New([]Entry{
		{Method: http.MethodPost, Pattern: "/tools/search", Handler: named("search"), OtherMethods: named("search-405")},
		{Method: http.MethodGet, Pattern: "/sessions/{id}", Handler: named("history"), OtherMethods: named("history-405")},
		{Pattern: "/sessions/{id}/turns", Handler: named("turns")},
		{Pattern: Exact("/demo/"), Handler: named("demo")},
		{Pattern: Exact("/m{c}p x"), Handler: named("braces")},
	}, named("fallback"))
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func serve(rt *Router, method, target string) (int, string) {
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w.Code, w.Body.String()
}

// Every path reaches its entry or the fallback, never one of ServeMux's
// own answers (a plain-text 404 or 405, a redirect to a cleaned path or to
// a trailing slash), and wildcards read the decoded segment.
func TestRouterAnswersEveryPathThroughAnEntryOrTheFallback(t *testing.T) {
	t.Parallel()
	rt := testRouter(t)
	for _, c := range []struct{ method, target, want string }{
		{"POST", "/tools/search", "search:"},
		{"GET", "/tools/search", "search-405:"},
		{"DELETE", "/tools/search", "search-405:"},
		{"GET", "/sessions/abc", "history:abc"},
		{"HEAD", "/sessions/abc", "history:abc"},
		{"POST", "/sessions/abc", "history-405:abc"},
		{"POST", "/sessions/a%20b/turns", "turns:a b"},
		{"POST", "/sessions/./turns", "turns:."},
		{"GET", "/sessions/..", "history:.."},
		{"POST", "/sessions/a%2Fb/turns", "fallback:"}, // an encoded slash separates segments, as the decoded path has it
		{"GET", "/demo/", "demo:"},
		{"GET", "/demo", "fallback:"}, // no redirect to /demo/
		{"GET", "/m%7Bc%7Dp%20x", "braces:"},
		{"GET", "/tools//search", "fallback:"},
		{"GET", "/tools/./search", "fallback:"},
		{"GET", "/tools/../tools/search", "fallback:"},
		{"POST", "/tools/search/", "fallback:"},
		{"GET", "/nothing", "fallback:"},
		{"GET", "/", "fallback:"},
	} {
		code, body := serve(rt, c.method, c.target)
		if code != http.StatusOK || body != c.want {
			t.Errorf("%s %s: %d %q, want 200 %q", c.method, c.target, code, body, c.want)
		}
	}
}

// A table whose entries would serve the same request is refused when it
// is built, with an error rather than ServeMux's panic.
func TestConflictingEntriesAreAnError(t *testing.T) {
	t.Parallel()
	for name, es := range map[string][]Entry{
		"same path": {{Pattern: "/a", Handler: named("1")}, {Pattern: "/a", Handler: named("2")}},
		"ambiguous": {{Pattern: "/a/{x}", Handler: named("1")}, {Pattern: "/{y}/b", Handler: named("2")}},
		"no 405":    {{Method: "POST", Pattern: "/a", Handler: named("1")}},
	} {
		if _, err := New(es, named("fallback")); err == nil || !strings.Contains(err.Error(), "router") {
			t.Errorf("%s: %v, want an error", name, err)
		}
	}
}

func TestChainRunsTheFirstMiddlewareOutermost(t *testing.T) {
	t.Parallel()
	var order []string
	mark := func(name string) Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				order = append(order, name)
				next.ServeHTTP(w, r)
			})
		}
	}
	h := Chain(named("h"), mark("outer"), nil, mark("inner"))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if strings.Join(order, ",") != "outer,inner" {
		t.Errorf("order %v", order)
	}
}
