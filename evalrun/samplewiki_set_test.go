package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestSampleWikiSet checks the shipped set of the sample wiki: it loads,
// it has the cases docs/eval.md promises, and every expected page exists in
// samplewiki/site (page paths are publish/<path under docs/>, as
// samplewiki/wiki-map.yaml maps them).
func TestSampleWikiSet(t *testing.T) {
	s, err := LoadSet("../evalsets/samplewiki.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kinds, chinese := map[string]int{}, 0
	for _, c := range s.Cases {
		kinds[c.Kind]++
		if strings.ContainsFunc(c.Question, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			chinese++
		}
		for _, p := range c.Expected {
			file := filepath.Join("../samplewiki/site/docs", strings.TrimPrefix(p, "publish/"))
			if _, err := os.Stat(file); err != nil {
				t.Errorf("case %s expects %s, which is not a sample wiki page: %v", c.ID, p, err)
			}
		}
	}
	if len(s.Cases) < 40 || kinds[KindUnanswerable] < 10 || kinds[KindRestricted] < 5 || chinese < 5 {
		t.Errorf("set has %d cases %v, %d Chinese; want at least 40, 10 unanswerable, 5 restricted, 5 Chinese", len(s.Cases), kinds, chinese)
	}
}
