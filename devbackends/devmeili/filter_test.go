package devmeili

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

var filterDoc = orderedObject{
	{"id", "1"}, {"path", "publish/a/b.md"}, {"project", "Kunora-Kgent"}, {"status", "approved"},
	{"version", "v1.0"}, {"pathPrefixes", []string{"publish", "publish/a", "publish/a/b.md"}},
	{"headings", []string{}}, {"title", "NOT"}, {"quote", `it's "x"`}, {"nothing", nil},
}

func TestFilterMatches(t *testing.T) {
	cases := []struct {
		filter string
		want   bool
	}{
		{`project = kunora-kgent`, true},
		{`project = "KUNORA-KGENT"`, true},
		{`project=kunora-kgent`, true},
		{`project != kunora-kgent`, false},
		{`status = approved AND version = v1.0`, true},
		{`status = working OR version = v1.0`, true},
		{`NOT status = approved`, false},
		{`NOT status = working AND version = v1.0`, true},
		{`status = working AND version = main OR project = kunora-kgent`, true},
		{`status = working AND (version = main OR project = kunora-kgent)`, false},
		{`((status = approved))`, true},
		{`pathPrefixes = publish/a`, true},
		{`pathPrefixes = publish/a/b`, false},
		{`pathPrefixes IN [publish/x, "publish/a"]`, true},
		{`pathPrefixes IN [publish/a,]`, true},
		{`pathPrefixes IN []`, false},
		{`pathPrefixes NOT IN [publish/a]`, false},
		{`path STARTS WITH publish/a`, true},
		{`path STARTS WITH "PUBLISH/A"`, true},
		{`path NOT STARTS WITH publish/a`, false},
		{`version > v0.9`, true},
		{`version >= v1.0`, true},
		{`version < v1.0`, false},
		{`version <= v1.0`, true},
		{`version v0.1 TO v1.0`, true},
		{`version v1.1 TO v2`, false},
		{`headings IS EMPTY`, true},
		{`headings IS NOT EMPTY`, false},
		{`status IS EMPTY`, false},
		{`status EXISTS`, true},
		{`missing EXISTS`, false},
		{`missing NOT EXISTS`, true},
		{`nothing IS NULL`, true},
		{`status IS NULL`, false},
		{`status IS NOT NULL`, true},
		{`title = "NOT"`, true},
		{`quote = 'it\'s "x"'`, true},
		{`quote = "it's \"x\""`, true},
		{`missing != x`, true},
	}
	for _, c := range cases {
		node, err := filterexpr.Parser{}.Parse(c.filter)
		if err != nil {
			t.Errorf("%s: unexpected error %s", c.filter, err.Error())
			continue
		}
		if got := matches(node, filterDoc); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.filter, got, c.want)
		}
	}
}

func TestFilterArrayForm(t *testing.T) {
	cases := []struct {
		filter string
		want   bool
	}{
		{`[["status = working", "version = v1.0"], "project = kunora-kgent"]`, true},
		{`["status = working"]`, false},
		{`["status = approved", ["version = main"]]`, false},
		{`["", []]`, true},
		{`[]`, true},
	}
	for _, c := range cases {
		node, err := filterexpr.ParseValue(decodeJSON(t, c.filter))
		if err != nil {
			t.Errorf("%s: %s", c.filter, err.Error())
			continue
		}
		if got := node == nil || matches(node, filterDoc); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.filter, got, c.want)
		}
	}
}

func TestFilterNotFilterableNamesTheAttribute(t *testing.T) {
	node, perr := filterexpr.Parser{}.Parse(`"many" = "Glass"`)
	if perr != nil {
		t.Fatal(perr.Error())
	}
	err := checkFilterable(node, filterableAttributes)
	want := "Attribute `many` is not filterable. Available filterable attribute patterns are: `id`, `path`, `pathPrefixes`, `project`, `status`, `version`.\n2:6 \"many\" = \"Glass\""
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	node, _ = filterexpr.Parser{}.Parse(`_geoRadius(45.4, 9.1, 2000)`)
	if err := checkFilterable(node, filterableAttributes); err == nil || !strings.HasPrefix(err.Error(), "Attribute `_geo` is not filterable.") {
		t.Errorf("geo filter: got %v, want _geo not filterable", err)
	}
}

func TestFuseFiltersPutsRequestFirst(t *testing.T) {
	got := jsonText(fuseFilters("a = 1", []any{"b = 2", "c = 3"}))
	if want := `["a = 1","b = 2","c = 3"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := fuseFilters(nil, "b = 2"); got != "b = 2" {
		t.Errorf("no request filter: got %v", got)
	}
	if got := fuseFilters("a = 1", nil); got != "a = 1" {
		t.Errorf("no rule filter: got %v", got)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func fixtureMessage(t *testing.T, name string) string {
	t.Helper()
	return fixture(t, name)["message"].(string)
}
