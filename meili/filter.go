package meili

import (
	"slices"
	"strings"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// Filter builds the Meilisearch filter for an effective scope, so policy
// (Rego) never builds filter strings (DESIGN §5). When the policy paired
// each project with its own paths (s.ProjectPaths non-nil), each project is
// searched only under its paths:
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
	statuses := []string{scope.StatusApproved}
	if s.IncludeWorkingDocs {
		statuses = append(statuses, scope.StatusWorking)
	}
	versionAndStatus := "version = " + Quote(s.Version) + " AND status IN " + quoteList(statuses)
	if s.ProjectPaths != nil {
		return versionAndStatus + " AND (" + projectPathsFilter(s) + ")"
	}
	return "project IN " + quoteList(s.Projects) + " AND " + versionAndStatus +
		" AND pathPrefixes IN " + quoteList(s.Paths)
}

// projectPathsFilter ORs one (project = "p" AND pathPrefixes IN [...])
// clause per project of s, in sorted order so the same scope always gives
// the same filter (and tenant token). No projects give project IN [].
func projectPathsFilter(s protocol.Scope) string {
	projects := slices.Compact(slices.Sorted(slices.Values(s.Projects)))
	if len(projects) == 0 {
		return "project IN []"
	}
	clauses := make([]string, len(projects))
	for i, p := range projects {
		clauses[i] = "(project = " + Quote(p) + " AND pathPrefixes IN " + quoteList(s.ProjectPaths[p]) + ")"
	}
	return strings.Join(clauses, " OR ")
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
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('"')
	for _, r := range v {
		if r == '\\' || r == '"' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func quoteList(vs []string) string {
	quoted := make([]string, len(vs))
	for i, v := range vs {
		quoted[i] = Quote(v)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
