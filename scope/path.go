// Package scope validates, normalizes and checks scopes: the projects,
// repository-relative paths, version and working-docs flag a call may reach
// (docs/protocol.md, The standard request). Requests are normalized here
// before policy sees them, and every backend answer is checked here again on
// the way back (docs/security.md, What the policy decides), because a backend
// filter is not a sufficient guarantee on its own.
package scope

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// NormalizePath validates a repository-relative path such as
// "publish/system/components/kunora-kgent" and strips one trailing "/".
//
// It rejects the empty path, a leading "/", "." and ".." segments, empty
// segments ("a//b"), backslashes, "%", control and invisible format
// characters (NUL, bidi overrides), invalid UTF-8 and paths over
// protocol.MaxPathBytes. Each of these is a way to make two spellings name
// the same page, or to make a path look different in an audit record than
// it is, so none of them reaches policy or a backend filter. The error is a
// *protocol.Error invalid_request naming field.
func NormalizePath(field, p string) (string, error) {
	if reason := pathProblem(p); reason != "" {
		return "", invalid(field, reason)
	}
	p = strings.TrimSuffix(p, "/")
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "":
			return "", invalid(field, "must not contain empty segments")
		case ".", "..":
			return "", invalid(field, `must not contain "." or ".." segments`)
		}
	}
	return p, nil
}

// pathProblem checks the whole string (before any segment is looked at) and
// returns why it is refused, or "".
func pathProblem(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case len(p) > protocol.MaxPathBytes:
		return fmt.Sprintf("must be at most %d bytes", protocol.MaxPathBytes)
	case !utf8.ValidString(p):
		return "must be valid UTF-8"
	case strings.HasPrefix(p, "/"):
		return `must be repository-relative (no leading "/")`
	}
	for _, r := range p {
		if reason := runeProblem(r); reason != "" {
			return reason
		}
	}
	return ""
}

// runeProblem is why r may not appear in a path, or "". Every hit of every
// search is checked through here, so ASCII, nearly all of a path, is
// answered without the Unicode tables: no ASCII character is a format
// (Cf) or line or paragraph separator (Zl, Zp), and its control characters
// are those below space and DEL.
func runeProblem(r rune) string {
	switch {
	case r == '\\':
		return "must not contain backslashes"
	case r == '%':
		return `must not contain "%"`
	case r < utf8.RuneSelf:
		if r < ' ' || r == 0x7f {
			return "must not contain control characters"
		}
		return ""
	case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
		return "must not contain control characters"
	}
	return ""
}

// Covers reports whether p equals prefix or lies under it on a "/" segment
// boundary: "a/b" covers "a/b" and "a/b/c" but not "a/bc". The comparison is
// case-sensitive, unlike Meilisearch's filters. An empty prefix covers
// nothing, so a missing path can never grant everything.
func Covers(prefix, p string) bool {
	if prefix == "" {
		return false
	}
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	return len(p) == len(prefix) || p[len(prefix)] == '/'
}

func invalid(field, reason string) *protocol.Error {
	return protocol.NewError(protocol.CodeInvalidRequest, field+": "+reason)
}
