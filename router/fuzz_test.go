package router

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fuzzMethods are the methods the fuzzer picks from (CONNECT is the
// fallback's by rule, not by path).
var fuzzMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"}

// FuzzRouterMatchesTheDecodedPath: whatever the request target, the answer
// is an entry's or the fallback's, never ServeMux's own (a plain 404 or
// 405, a redirect), and it is the entry whose pattern the decoded path
// matches, with the decoded segment as its wildcard (wantOf is the oracle,
// written with string functions, not ServeMux).
func FuzzRouterMatchesTheDecodedPath(f *testing.F) {
	for _, s := range []string{"/tools/search", "/sessions/abc", "/sessions/a%2Fb/turns", "/sessions/./turns", "/sessions/..",
		"/demo/", "/demo", "/m%7Bc%7Dp%20x", "//tools/search", "/tools/./search", "/a/../tools/search", "/sessions/%2E%2E", "/%ff/x", "*"} {
		f.Add(byte(2), s)
	}
	rt := testRouter(f)
	f.Fuzz(func(t *testing.T, m byte, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Host != "" || u.RawQuery != "" || strings.ContainsAny(target, " \t\r\n#?") {
			return // no request line a server would hand over
		}
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		r := httptest.NewRequest(method, "/", nil)
		r.URL, r.RequestURI = u, target
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, r)
		if want := wantOf(method, target, u.Path); w.Code != http.StatusOK || w.Body.String() != want {
			t.Fatalf("%s %q (path %q): %d %q, want 200 %q", method, target, u.Path, w.Code, w.Body.String(), want)
		}
	})
}

// wantOf is the answer of the test table for a decoded path.
func wantOf(method, target, path string) string {
	if target == "*" || strings.Contains(path, "//") {
		return "fallback:"
	}
	switch path {
	case "/tools/search":
		return pick(method == "POST", "search", "search-405") + ":"
	case "/demo/":
		return "demo:"
	case "/m{c}p x":
		return "braces:"
	}
	if id, ok := strings.CutPrefix(path, "/sessions/"); ok {
		if turns, ok := strings.CutSuffix(id, "/turns"); ok && turns != "" && !strings.Contains(turns, "/") {
			return "turns:" + turns
		}
		if id != "" && !strings.Contains(id, "/") {
			return pick(method == "GET" || method == "HEAD", "history", "history-405") + ":" + id
		}
	}
	return "fallback:"
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}
