// Package safeurl decides whether a URL a backend supplied may be handed to
// a caller (docs/docs-sites.md "Safe URLs and the widget's Content-Security-Policy").
// A document's url is metadata anyone who edits the document in RAGFlow or
// Meilisearch can set; a docs page that renders it as a link would run a
// javascript: URL in its own origin. So the gate passes only what a browser,
// and a careless renderer, can take for nothing but an http(s) page:
//
//   - an absolute http: or https: URL with a host and no user info
//     ("https://docs.example/a", any case), or
//   - a relative reference that is not protocol-relative ("/a/b", "a/b",
//     "../a", "?q", "#x"),
//
// written as a well-formed URL is: no ASCII control characters, spaces,
// backslashes, quotes or angle brackets, no Unicode spaces or invisible
// format characters, no "%" but in a %XX escape, valid UTF-8. And the same string read the ways a
// careless consumer reads it (HTML entities decoded, percent-escapes decoded,
// the characters browsers ignore removed) must still be http(s) or a
// relative path that does not start with "//": "&#106;avascript:",
// "javascript%3A…" and "%2F%2Fhost" are refused.
package safeurl

import (
	"html"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Allowed reports whether the backend-supplied URL s may be returned. The
// empty string is allowed: it is no link at all.
func Allowed(s string) bool {
	if s == "" {
		return true
	}
	if !wellFormed(s) || !structurallySafe(s) {
		return false
	}
	return readingsSafe(s)
}

// wellFormed refuses the characters no URL needs unescaped: controls,
// spaces (also Unicode ones), invisible format characters (zero-width
// space, byte-order mark, bidi controls), backslashes (browsers read "\" as
// "/" in http(s) URLs), quotes, backticks and angle brackets (which break
// out of an HTML attribute a careless page builds by hand), a "%" that does
// not start a %XX escape, and invalid UTF-8.
func wellFormed(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])):
			return false
		case r <= ' ' || r == 0x7f:
			return false
		case r == '\\' || r == '"' || r == '\'' || r == '`' || r == '<' || r == '>':
			return false
		case r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)):
			return false
		}
	}
	return true
}

// structurallySafe is the rule on the string as written: a scheme (the text
// before the first ':' when no '/', '?' or '#' comes first) must be http or
// https followed by "//", a host and no user info; without one, the
// reference must not start with "//".
func structurallySafe(s string) bool {
	i := strings.IndexAny(s, ":/?#")
	if i < 0 || s[i] != ':' {
		return !strings.HasPrefix(s, "//")
	}
	if !isHTTPScheme(s[:i]) || !strings.HasPrefix(s[i+1:], "//") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.User == nil && u.Hostname() != "" && !strings.Contains(u.Host, "@")
}

// isHTTPScheme reports whether scheme is http or https, in any case.
func isHTTPScheme(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// maxDecodeRounds bounds the decoding of nested encodings ("%2525…").
const maxDecodeRounds = 4

// readingsSafe checks s decoded as careless consumers decode it: HTML
// entities (a URL pasted into markup), percent-escapes (a URL passed
// through decodeURIComponent), each repeated, in either order. Every
// reading must still be safe as a browser parses a link.
func readingsSafe(s string) bool {
	seen := map[string]bool{s: true}
	frontier := []string{s}
	for round := 0; round < maxDecodeRounds && len(frontier) > 0; round++ {
		var next []string
		for _, v := range frontier {
			for _, d := range decodings(v) {
				if seen[d] {
					continue
				}
				if !browserSafe(d) {
					return false
				}
				seen[d] = true
				next = append(next, d)
			}
		}
		frontier = next
	}
	return true
}

// decodings are s with its HTML entities decoded and with its
// percent-escapes decoded (invalid escapes left as they are).
func decodings(s string) []string {
	out := make([]string, 0, 2)
	if strings.IndexByte(s, '&') >= 0 {
		out = append(out, html.UnescapeString(s))
	}
	if strings.IndexByte(s, '%') >= 0 {
		out = append(out, percentDecode(s))
	}
	return out
}

// percentDecode decodes every valid %XX escape and keeps the rest.
func percentDecode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// browserSafe reads a decoded form as the WHATWG URL parser would, only
// more suspicious: every control, space and invisible format character is
// dropped wherever it is (the parser drops leading C0 controls and spaces
// and every tab and newline; other readers trim Unicode spaces), and "\" is
// "/". What is left must have no scheme but http(s), and no scheme at all
// must not start with "//".
func browserSafe(s string) bool {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\\':
			return '/'
		case r <= ' ' || r == 0x7f || r == utf8.RuneError,
			unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	if scheme, ok := schemeOf(s); ok {
		return isHTTPScheme(scheme)
	}
	return !strings.HasPrefix(s, "//")
}

// schemeOf is the URL scheme s starts with, as the WHATWG parser finds it:
// an ASCII letter, then letters, digits, "+", "-" or ".", then ':'.
func schemeOf(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], true
		default:
			return "", false
		}
	}
	return "", false
}
