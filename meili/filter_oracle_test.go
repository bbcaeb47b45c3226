package meili

import (
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// filterOracle is Filter as it was written before its one-pass form: each
// value quoted into a string of its own, lists and clauses joined.
func filterOracle(s protocol.Scope) string {
	statuses := []string{scope.StatusApproved}
	if s.IncludeWorkingDocs {
		statuses = append(statuses, scope.StatusWorking)
	}
	versionAndStatus := "version = " + quoteOracle(s.Version) + " AND status IN " + quoteListOracle(statuses)
	if s.ProjectPaths != nil {
		projects := slices.Compact(slices.Sorted(slices.Values(s.Projects)))
		if len(projects) == 0 {
			return versionAndStatus + " AND (project IN [])"
		}
		clauses := make([]string, len(projects))
		for i, p := range projects {
			clauses[i] = "(project = " + quoteOracle(p) + " AND pathPrefixes IN " + quoteListOracle(s.ProjectPaths[p]) + ")"
		}
		return versionAndStatus + " AND (" + strings.Join(clauses, " OR ") + ")"
	}
	return "project IN " + quoteListOracle(s.Projects) + " AND " + versionAndStatus +
		" AND pathPrefixes IN " + quoteListOracle(s.Paths)
}

func quoteOracle(v string) string {
	var b strings.Builder
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

func quoteListOracle(vs []string) string {
	quoted := make([]string, len(vs))
	for i, v := range vs {
		quoted[i] = quoteOracle(v)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// oracleScope builds a scope from fuzzed parts: paired or flat, projects
// sorted or not, repeated or not, values with quotes, backslashes and
// bytes that are not UTF-8.
func oracleScope(a, b, c string, paired, working bool) protocol.Scope {
	s := protocol.Scope{Projects: []string{a, b, a}, Paths: []string{c, b}, Version: c, IncludeWorkingDocs: working}
	if len(a)%2 == 0 {
		s.Projects = []string{b, a}
	}
	if len(c)%3 == 0 {
		s.Projects = nil
	}
	if paired {
		s.ProjectPaths = map[string][]string{a: {c, `x"\y`}, c: {b}}
	}
	return s
}

func TestFilterIsTheOracle(t *testing.T) {
	values := []string{"", "main", `a"b`, `a\b`, "文档", "bad \xff\xfe byte", "kunora-kgent", "a", "b"}
	for _, a := range values {
		for _, b := range values {
			for _, c := range []string{"", "p", `q\"`, "\xed\xa0\x80"} {
				for _, paired := range []bool{false, true} {
					s := oracleScope(a, b, c, paired, len(b)%2 == 1)
					if got, want := Filter(s), filterOracle(s); got != want {
						t.Fatalf("Filter(%+v) =\n  %s\nwant\n  %s", s, got, want)
					}
				}
			}
		}
	}
	for _, v := range values {
		if got, want := Quote(v), quoteOracle(v); got != want {
			t.Errorf("Quote(%q) = %s, want %s", v, got, want)
		}
	}
}

func FuzzFilterIsTheOracle(f *testing.F) {
	f.Add("kunora-kgent", "kunora-gateway", "publish/system", true, false)
	f.Add(`x"`, "\xff", `a\b`, false, true)
	f.Fuzz(func(t *testing.T, a, b, c string, paired, working bool) {
		s := oracleScope(a, b, c, paired, working)
		if got, want := Filter(s), filterOracle(s); got != want {
			t.Fatalf("Filter(%+v) =\n  %s\nwant\n  %s", s, got, want)
		}
	})
}

func BenchmarkFilter(b *testing.B) {
	s := protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main",
		ProjectPaths: map[string][]string{"kunora-kgent": {"publish/system/components/kunora-kgent"}}}
	b.Run("oracle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = filterOracle(s)
		}
	})
	b.Run("Filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Filter(s)
		}
	})
}
