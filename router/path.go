package router

import (
	"net/http"
	"net/url"
	"strings"
)

// Exact is the pattern matching exactly the configured path p (the MCP
// endpoint's, say): each segment escaped, so braces or spaces in it are
// literal, and a trailing slash matching only itself.
func Exact(p string) string {
	out := escapePath(p)
	if strings.HasSuffix(out, "/") {
		out += "{$}"
	}
	return out
}

// escapePath escapes each segment of p.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	return strings.Join(segs, "/")
}

// matchable is r as ServeMux should match it: on its decoded path, split
// at its slashes, as the gate always matched routes (an encoded slash,
// %2F, separates segments like a slash). A path ServeMux would redirect
// (an empty segment, a request for "*", a CONNECT) is false: no entry
// serves it, the fallback answers. Dot segments are matched as they are
// (a wildcard may read "."), never cleaned away by a redirect.
func matchable(r *http.Request) (*http.Request, bool) {
	p := r.URL.Path
	if r.Method == http.MethodConnect || r.RequestURI == "*" || !strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
		return nil, false
	}
	if r.URL.RawPath == "" && !hasDotSegment(p) {
		return r, true // ServeMux reads the default encoding of p: its segments as they are
	}
	u := *r.URL
	u.RawPath = escapePath(p)
	mr := r.WithContext(r.Context())
	mr.URL = &u
	return mr, true
}

// escapeSegment escapes one path segment; a dot segment becomes %2E, which
// ServeMux neither cleans nor redirects, and reads back as the dots.
func escapeSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

func hasDotSegment(p string) bool {
	for s := range strings.SplitSeq(p, "/") {
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}
