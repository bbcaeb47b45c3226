package meiliroutes

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/meili"
)

// FuzzDocsHit: whatever a page's title, content and the query hold, a
// docs-scraper record built from it never panics, and no value, plain or
// formatted, holds markup (a "<" that opens a tag as an HTML parser reads
// one: a letter, "/", "!" or "?" after it) but the highlight tags the gate
// put in; a highlighted field without its tags is the plain value.
func FuzzDocsHit(f *testing.F) {
	f.Add("# T\n\n## A <img src=x onerror=y>\n\ntext <script>x</script> memory [l](javascript:x)", "T<b>x</b>", "memory a")
	f.Add("## <<b>script>x {#id}\n\n```\n## no\n```\n<\n!-- c -->", "<", "script 记忆")
	f.Add("记忆<em>后端</em>", "", "记忆")
	f.Fuzz(func(t *testing.T, content, title, q string) {
		h := meili.Hit{ID: "i", URL: "/p", Title: title, Project: "p", Version: "main", Status: "approved", Content: content}
		query := meiliQuery{Q: &q, AttributesToHighlight: []string{"*"}, AttributesToCrop: []string{"content:5"}}
		hit := docsHit(h, &query, docsAttributes)
		formatted := hit["_formatted"].(map[string]any)
		for _, name := range docsAttributes {
			plain, _ := hit[name].(string)
			shown, _ := formatted[name].(string)
			for _, v := range []string{plain, strings.NewReplacer("<em>", "", "</em>", "").Replace(shown)} {
				if i := markupAt(v); i >= 0 {
					t.Fatalf("%s holds markup at %d: %q", name, i, v)
				}
			}
			if strings.HasPrefix(name, "hierarchy_") && strings.NewReplacer("<em>", "", "</em>", "").Replace(shown) != plain {
				t.Fatalf("%s: formatted %q is not plain %q highlighted", name, shown, plain)
			}
		}
	})
}

// markupAt is where s has a "<" that opens a tag, -1 when nowhere.
func markupAt(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		c := s[i+1]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '/' || c == '!' || c == '?' {
			return i
		}
	}
	return -1
}
