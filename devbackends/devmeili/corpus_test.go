package devmeili

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/samplewiki"
)

const (
	kgentRoot  = "publish/system/components/kunora-kgent"
	extrasRoot = "publish/system/components/kunora-kgent-extras"
)

func TestSampleWikiCoversTheScopesTestsNeed(t *testing.T) {
	c, err := samplewiki.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(c.Pages) < 34 {
		t.Errorf("%d pages, want at least 34", len(c.Pages))
	}
	count := map[string]int{}
	for _, p := range c.Pages {
		count[p.Project+" "+p.Version+" "+p.Status]++
		switch {
		case strings.HasPrefix(p.Path, extrasRoot+"/"):
			count["trap"]++
		case p.Project == "kunora-kgent" && p.Version == "main" && strings.HasPrefix(p.Path, kgentRoot+"/guides/"):
			count["kgent guides"]++
		}
		if words := len(strings.Fields(p.Content)); words < 150 || words > 650 {
			t.Errorf("%s/%s: %d words", p.Version, p.Path, words)
		}
		for _, topic := range []string{"payroll", "vacation", "holiday", "quantum", "catering"} {
			if strings.Contains(strings.ToLower(p.Content+p.Title), topic) {
				t.Errorf("%s mentions %q, a topic the wiki must not cover", p.Path, topic)
			}
		}
	}
	minimum := map[string]int{
		"kunora-kgent main approved": 8, "kunora-kgent main working": 2,
		"kunora-kgent v1.0 approved": 4, "kunora-kgent v1.0 working": 1,
		"kunora-gateway main approved": 5, "kunora-gateway main working": 1, "kunora-gateway v1.0 approved": 2,
		"kunora-ops main approved": 4, "kunora-ops main working": 1, "kunora-ops v1.0 approved": 2,
		"trap": 2, "kgent guides": 2,
	}
	for k, n := range minimum {
		if count[k] < n {
			t.Errorf("%s: %d pages, want at least %d", k, count[k], n)
		}
	}
}

// TestScopeByPathPrefixesExcludesThePrefixTrap: the extras pages rank high
// for "agent memory" and share the string prefix of the kgent root, so only
// a whole-segment scope (pathPrefixes) keeps them out.
func TestScopeByPathPrefixesExcludesThePrefixTrap(t *testing.T) {
	s := newTestServer(t)
	_, key := s.SearchKey()
	paths := func(body string) []string {
		_, resp := search(t, s, key, body)
		var out []string
		for _, h := range hitsOf(t, resp) {
			out = append(out, h["path"].(string))
		}
		return out
	}
	inTrap := func(ps []string) bool {
		for _, p := range ps {
			if strings.HasPrefix(p, extrasRoot+"/") {
				return true
			}
		}
		return false
	}
	if top := paths(`{"q":"agent memory","limit":5}`); !inTrap(top) {
		t.Errorf("unscoped top 5 %v: the trap pages must rank well", top)
	}
	if got := paths(`{"q":"agent memory","limit":100,"filter":"path STARTS WITH \"` + kgentRoot + `\""}`); !inTrap(got) {
		t.Error("a string-prefix scope must fall into the trap (that is what the trap is for)")
	}
	scoped := paths(`{"q":"how do I configure agent memory","limit":100,"filter":"pathPrefixes = \"` + kgentRoot + `\" AND version = main AND status = approved"}`)
	if len(scoped) < 3 || inTrap(scoped) {
		t.Errorf("segment scope: %v", scoped)
	}
	if !strings.HasPrefix(scoped[0], kgentRoot+"/") || !strings.Contains(scoped[0], "memory") {
		t.Errorf("first scoped hit %s, want a kgent memory page", scoped[0])
	}
	for _, project := range []string{"kunora-gateway", "kunora-ops"} {
		if got := paths(`{"q":"agent memory","filter":"project = ` + project + `"}`); len(got) == 0 {
			t.Errorf("%s has no page mentioning agent memory; scope filtering would not be visible", project)
		}
	}
}
