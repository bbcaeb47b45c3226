package normalizer

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// snippetReference is the plain three-step definition meiliPlainText must
// match: remove highlight tags, fold whitespace, cut after limit runes.
func snippetReference(s string, limit int, stripTags bool) string {
	if stripTags {
		s = strings.NewReplacer("<em>", "", "</em>", "").Replace(s)
	}
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	n := 0
	for i := range s {
		if n == limit {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
		n++
	}
	return s
}

func FuzzMeiliPlainText(f *testing.F) {
	for _, s := range []string{"…the <em>memory</em>\n\n  window…", "  a  b ", "<em>x</em>", "<e<em>m>", "文 文 文", strings.Repeat("word ", 60)} {
		f.Add(s, 5, true)
		f.Add(s, 200, false)
	}
	f.Fuzz(func(t *testing.T, s string, limit int, strip bool) {
		if !utf8.ValidString(s) || limit < 1 || limit > 300 {
			return
		}
		if got, want := meiliPlainText(s, limit, strip), snippetReference(s, limit, strip); got != want {
			t.Fatalf("meiliPlainText(%q, %d, %v) = %q, want %q", s, limit, strip, got, want)
		}
	})
}
