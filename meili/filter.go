package meili

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// Filter builds the Meilisearch filter for an effective scope, so policy
// (Rego) never builds filter strings (docs/backends.md, Read side: what the
// gate sends). When the policy paired each project with its own paths
// (s.ProjectPaths non-nil), each project is searched only under its paths:
//
//	version = "main" AND status IN ["approved"] AND ((project = "a" AND pathPrefixes IN ["a1"]) OR (project = "b" AND pathPrefixes IN ["b1", "b2"]))
//
// with the projects of s.Projects in sorted order (a project missing from
// the map gets IN [] and matches nothing). Without the pairing it is the
// flat form:
//
//	project IN ["a", "b"] AND version = "main" AND status IN ["approved"] AND pathPrefixes IN ["p1", "p2"]
//
// "working" joins the status list only when s.IncludeWorkingDocs. Every
// value is quoted with Quote. An empty list renders as IN [], which
// Meilisearch accepts and which matches nothing, so an incomplete scope
// fails closed. Meilisearch compares strings case-insensitively: this filter
// narrows the search, and scope.Contains re-checks every hit exactly.
func Filter(s protocol.Scope) string {
	return string(appendFilter(make([]byte, 0, 160), s))
}

// appendFilter is Filter in one pass of appends: it runs on every search,
// and building each quoted value and list as a string of its own was most
// of its cost (TestFilterIsTheOracle holds it to the concatenating form).
func appendFilter(b []byte, s protocol.Scope) []byte {
	if s.ProjectPaths == nil {
		b = appendQuotedList(append(b, "project IN "...), s.Projects)
		b = appendVersionAndStatus(append(b, " AND "...), s)
		return appendQuotedList(append(b, " AND pathPrefixes IN "...), s.Paths)
	}
	b = append(appendVersionAndStatus(b, s), " AND ("...)
	return append(appendProjectPaths(b, s), ')')
}

// appendVersionAndStatus appends `version = "v" AND status IN [...]`;
// "working" joins the statuses only when s.IncludeWorkingDocs.
func appendVersionAndStatus(b []byte, s protocol.Scope) []byte {
	b = appendQuote(append(b, "version = "...), s.Version)
	b = appendQuote(append(b, " AND status IN ["...), scope.StatusApproved)
	if s.IncludeWorkingDocs {
		b = appendQuote(append(b, ", "...), scope.StatusWorking)
	}
	return append(b, ']')
}

// appendProjectPaths ORs one (project = "p" AND pathPrefixes IN [...])
// clause per project of s, in sorted order so the same scope always gives
// the same filter (and tenant token). No projects give project IN [].
func appendProjectPaths(b []byte, s protocol.Scope) []byte {
	projects := s.Projects
	if !slices.IsSorted(projects) || hasAdjacentDuplicates(projects) {
		projects = slices.Compact(slices.Sorted(slices.Values(projects)))
	}
	if len(projects) == 0 {
		return append(b, "project IN []"...)
	}
	for i, p := range projects {
		if i > 0 {
			b = append(b, " OR "...)
		}
		b = appendQuote(append(b, "(project = "...), p)
		b = appendQuotedList(append(b, " AND pathPrefixes IN "...), s.ProjectPaths[p])
		b = append(b, ')')
	}
	return b
}

// hasAdjacentDuplicates reports whether a sorted list repeats a value.
func hasAdjacentDuplicates(vs []string) bool {
	for i := 1; i < len(vs); i++ {
		if vs[i] == vs[i-1] {
			return true
		}
	}
	return false
}

// PathsFilter narrows a search to exact page paths (get_page):
// path IN ["x", "y"]. An empty list matches nothing.
func PathsFilter(paths []string) string {
	return "path IN " + quoteList(paths)
}

// And joins filters with AND, parenthesizing each non-empty part so a part
// containing OR cannot change the meaning of the others. Empty parts are
// skipped; no parts give "".
func And(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString("(" + p + ")")
	}
	return b.String()
}

// Quote renders v as a double-quoted filter value. Meilisearch first turns
// \" into " inside double quotes and then unescapes the remaining escape
// sequences (filter-parser value.rs), so escaping backslashes and double
// quotes is exactly enough for any string, including keywords like "AND".
func Quote(v string) string {
	return string(appendQuote(make([]byte, 0, len(v)+2), v))
}

// appendQuote appends Quote(v). Bytes that are not UTF-8 are written as
// U+FFFD, as a range over the string reads them.
func appendQuote(b []byte, v string) []byte {
	b = append(b, '"')
	for i := 0; i < len(v); {
		if c := v[i]; c < utf8.RuneSelf {
			if c == '\\' || c == '"' {
				b = append(b, '\\')
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(v[i:])
		b = utf8.AppendRune(b, r)
		i += size
	}
	return append(b, '"')
}

func quoteList(vs []string) string {
	return string(appendQuotedList(nil, vs))
}

// appendQuotedList appends ["a", "b"], each value quoted with Quote.
func appendQuotedList(b []byte, vs []string) []byte {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendQuote(b, v)
	}
	return append(b, ']')
}
