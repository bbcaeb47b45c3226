package meili

import (
	"strings"
	"testing"
)

func TestClientFilterRendersWhatItParsed(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, ""},
		{"", ""},
		{"status = working", `status = "working"`},
		{`project = 'kunora-kgent' AND version != "v1.0"`, `(project = "kunora-kgent") AND (version != "v1.0")`},
		{"project IN [a, 'b c'] OR NOT status = approved", `(project IN ["a", "b c"]) OR (NOT (status = "approved"))`},
		{"(path = x OR path = y) AND id NOT IN []", `((path = "x") OR (path = "y")) AND (id NOT IN [])`},
		{"((status = a))", `status = "a"`},
		{`path = "a\"b"`, `path = "a\"b"`},
		{[]any{"status = working", []any{"project = a", "project = b"}}, `(status = "working") AND ((project = "a") OR (project = "b"))`},
		// Keywords are upper case only, as Meilisearch reads them
		// (meili/filterexpr/testdata/filter_syntax.md): a lower-case one is
		// a value, and a list may end with a comma.
		{"status = and", `status = "and"`},
		{"project IN [not, or,]", `project IN ["not", "or"]`},
	}
	for _, c := range cases {
		got, err := ClientFilter(c.in)
		if err != nil || got != c.want {
			t.Errorf("ClientFilter(%#v) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// A caller's filter can never break out of the parentheses And puts it in:
// whatever it says, it is re-rendered from its parse, and text that does
// not parse is refused.
func TestClientFilterRefusesWhatItDoesNotParse(t *testing.T) {
	bad := []any{
		`status = working) OR (status = working`,
		`status = working OR`,
		`content = secret`,
		`status > 1`,
		`status = "open`,
		`status IN [a b]`,
		`(status = a`,
		`status = AND`,
		`status = a and project = b`,
		`status = a or project = b`,
		`not status = a`,
		`project in [a]`,
		`project not in [a]`,
		`status STARTS WITH a`,
		`status EXISTS`,
		`_geoRadius(1, 2, 3)`,
		strings.Repeat("(", 20) + "status = a" + strings.Repeat(")", 20),
		strings.Repeat("status = a AND ", 200) + "status = a",
		42.0,
		[]any{1.0},
		[]any{[]any{[]any{"status = a"}}},
	}
	for _, in := range bad {
		if got, err := ClientFilter(in); err == nil {
			t.Errorf("ClientFilter(%#v) = %q, want an error", in, got)
		}
	}
}

func FuzzClientFilter(f *testing.F) {
	f.Add(`status = working AND (project IN [a, "b"] OR NOT path = 'x')`)
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ClientFilter(s)
		if err != nil {
			return
		}
		// What is rendered parses again to itself: nothing the caller
		// wrote survives as syntax.
		again, err := ClientFilter(out)
		if err != nil || again != out {
			t.Fatalf("%q rendered %q, which renders %q (%v)", s, out, again, err)
		}
	})
}
