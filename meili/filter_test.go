package meili

import (
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"main", `"main"`},
		{"", `""`},
		{"with space", `"with space"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\b`, `"a\\b"`},
		{`trailing\`, `"trailing\\"`},
		{`\"`, `"\\\""`},
		{`x" OR project = "y`, `"x\" OR project = \"y"`},
		{"AND", `"AND"`},
		{"文档/组件", `"文档/组件"`},
		{"it's", `"it's"`},
		{"emoji 🦀", `"emoji 🦀"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// unquote is Meilisearch's reading of a double-quoted value (filter-parser
// value.rs: \" becomes " first, then escape sequences such as \\ are
// unescaped), enough to prove Quote round-trips.
func unquote(q string) string {
	inner := q[1 : len(q)-1]
	var out []rune
	rs := []rune(inner)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\\' && i+1 < len(rs) {
			i++
		}
		out = append(out, rs[i])
	}
	return string(out)
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, v := range []string{`a"b`, `a\b`, `a\"b`, `\\`, `"`, `end\`, `mixed \" and \\ "q"`, "unicode ü \\ 文"} {
		if got := unquote(Quote(v)); got != v {
			t.Errorf("unquote(Quote(%q)) = %q", v, got)
		}
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		s    protocol.Scope
		want string
	}{
		{
			"one project",
			protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main"},
			`project IN ["kunora-kgent"] AND version = "main" AND status IN ["approved"] AND pathPrefixes IN ["publish/system/components/kunora-kgent"]`,
		},
		{
			"several with working docs",
			protocol.Scope{Projects: []string{"a", "b"}, Paths: []string{"p1", "p2"}, Version: "v1.0", IncludeWorkingDocs: true},
			`project IN ["a", "b"] AND version = "v1.0" AND status IN ["approved", "working"] AND pathPrefixes IN ["p1", "p2"]`,
		},
		{
			"values needing quotes",
			protocol.Scope{Projects: []string{`x"] OR project IN ["y`}, Paths: []string{`a\b`, "文档"}, Version: "main"},
			`project IN ["x\"] OR project IN [\"y"] AND version = "main" AND status IN ["approved"] AND pathPrefixes IN ["a\\b", "文档"]`,
		},
		{
			"empty scope matches nothing",
			protocol.Scope{},
			`project IN [] AND version = "" AND status IN ["approved"] AND pathPrefixes IN []`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Filter(tt.s); got != tt.want {
				t.Errorf("Filter =\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

// TestFilterProjectPaths: with the policy's pairing each project is searched
// only under its own paths (the review's leak: kunora-kgent granted only on
// its guides must not match under kunora-gateway's wider path).
func TestFilterProjectPaths(t *testing.T) {
	const components, guides = "publish/system/components", "publish/system/components/kunora-kgent/guides"
	tests := []struct {
		name string
		s    protocol.Scope
		want string
	}{
		{
			"each project on its own paths, sorted",
			protocol.Scope{
				Projects:     []string{"kunora-kgent", "kunora-gateway"},
				Paths:        []string{components, guides},
				Version:      "main",
				ProjectPaths: map[string][]string{"kunora-kgent": {guides}, "kunora-gateway": {components}},
			},
			`version = "main" AND status IN ["approved"] AND ((project = "kunora-gateway" AND pathPrefixes IN ["publish/system/components"]) OR (project = "kunora-kgent" AND pathPrefixes IN ["publish/system/components/kunora-kgent/guides"]))`,
		},
		{
			"working docs, several paths",
			protocol.Scope{Projects: []string{"a"}, Paths: []string{"p"}, Version: "v1.0", IncludeWorkingDocs: true,
				ProjectPaths: map[string][]string{"a": {"p/1", "p/2"}}},
			`version = "v1.0" AND status IN ["approved", "working"] AND ((project = "a" AND pathPrefixes IN ["p/1", "p/2"]))`,
		},
		{
			"project missing from the map matches nothing",
			protocol.Scope{Projects: []string{"b", "a", "b"}, Paths: []string{"p"}, Version: "main",
				ProjectPaths: map[string][]string{"a": {"p"}, "z": {"p"}}},
			`version = "main" AND status IN ["approved"] AND ((project = "a" AND pathPrefixes IN ["p"]) OR (project = "b" AND pathPrefixes IN []))`,
		},
		{
			"values needing quotes",
			protocol.Scope{Projects: []string{`x") OR (project = "y`}, Version: "main",
				ProjectPaths: map[string][]string{`x") OR (project = "y`: {`a\b"]`}}},
			`version = "main" AND status IN ["approved"] AND ((project = "x\") OR (project = \"y" AND pathPrefixes IN ["a\\b\"]"]))`,
		},
		{
			"no projects matches nothing",
			protocol.Scope{Version: "main", ProjectPaths: map[string][]string{}},
			`version = "main" AND status IN ["approved"] AND (project IN [])`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Filter(tt.s); got != tt.want {
				t.Errorf("Filter =\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

func TestPathsFilter(t *testing.T) {
	got := PathsFilter([]string{"publish/a.md", `odd"name.md`})
	if want := `path IN ["publish/a.md", "odd\"name.md"]`; got != want {
		t.Errorf("PathsFilter = %s, want %s", got, want)
	}
	if got := PathsFilter(nil); got != "path IN []" {
		t.Errorf("PathsFilter(nil) = %s", got)
	}
}

func TestAnd(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{nil, ""},
		{[]string{"", ""}, ""},
		{[]string{"a = 1"}, "(a = 1)"},
		{[]string{"a = 1 OR b = 2", "", "c = 3"}, "(a = 1 OR b = 2) AND (c = 3)"},
	}
	for _, tt := range tests {
		if got := And(tt.parts...); got != tt.want {
			t.Errorf("And(%q) = %q, want %q", tt.parts, got, tt.want)
		}
	}
}
