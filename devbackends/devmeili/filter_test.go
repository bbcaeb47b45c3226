package devmeili

import (
	"encoding/json"
	"strings"
	"testing"
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
		node, err := parseFilterString(c.filter)
		if err != nil {
			t.Errorf("%s: unexpected error %s", c.filter, err.message())
			continue
		}
		if got := node.matches(filterDoc); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.filter, got, c.want)
		}
	}
}

func TestFilterBlankMeansNoFilter(t *testing.T) {
	for _, f := range []string{"", "   "} {
		if node, err := parseFilterString(f); node != nil || err != nil {
			t.Errorf("%q: got %v, %v; want no filter", f, node, err)
		}
	}
}

func TestFilterSyntaxErrors(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`title = Glass XOR title = Glass`, fixtureMessage(t, "error.invalid_search_filter.json")},
		{`title & Glass`, fixtureMessage(t, "error.invalid_search_filter.syntax.json")},
		{`status = `, "Was expecting a value but instead got nothing.\n10:10 status = "},
		{`status = NOT`, "Was expecting a value but instead got `NOT`, which is a reserved keyword. To use `NOT` as a field name or a value, surround it by quotes.\n10:13 status = NOT"},
		{`(status = a`, "Expression `(status = a` is missing the following closing delimiter: `)`.\n1:12 (status = a"},
		{`status = "abc`, "Expression `\"abc` is missing the following closing delimiter: `\"`.\n10:14 status = \"abc"},
		{`status IN a`, "Expected `[` after `IN` keyword.\n11:12 status IN a"},
		{`status IN [a b]`, "Expected matching `]` after the list of field names given to `IN[`\n11:16 status IN [a b]"},
		{`status = a AND`, strings.Replace(invalidPrimaryMsg, "%s", "", 1) + "\n15:15 status = a AND"},
	}
	for _, c := range cases {
		_, err := parseFilterString(c.filter)
		if err == nil {
			t.Errorf("%s: parsed, want an error", c.filter)
			continue
		}
		if got := err.message(); got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.filter, got, c.want)
		}
	}
}

func TestFilterContainsIsFeatureGated(t *testing.T) {
	_, err := parseFilterString("doggo CONTAINS kefir")
	if err == nil || !err.featureGated {
		t.Fatalf("CONTAINS: got %v, want a feature-gated error", err)
	}
	if want := fixtureMessage(t, "error.feature_not_enabled.contains.json"); err.message() != want {
		t.Errorf("got %q, want %q", err.message(), want)
	}
}

func TestFilterDepthIsBounded(t *testing.T) {
	for _, f := range []string{
		strings.Repeat("NOT ", 200) + "a = b",
		strings.Repeat("(", 200) + "a = b" + strings.Repeat(")", 200),
	} {
		_, err := parseFilterString(f)
		if err == nil || !strings.HasPrefix(err.message(), "The filter exceeded the maximum depth limit.") {
			t.Errorf("deep filter: got %v, want the depth limit error", err)
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
		node, err := parseFilterValue(decodeJSON(t, c.filter))
		if err != nil {
			t.Errorf("%s: %s", c.filter, err.message())
			continue
		}
		if got := node == nil || node.matches(filterDoc); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.filter, got, c.want)
		}
	}
}

func TestFilterArrayFormTypeErrors(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`true`, fixtureMessage(t, "error.invalid_search_filter.type.json")},
		{`[1]`, "Invalid syntax for the filter parameter: `expected String, [String], found: 1`."},
		{`[[1]]`, "Invalid syntax for the filter parameter: `expected String, found: 1`."},
		{`[["a = b", ["x"]]]`, "Invalid syntax for the filter parameter: `expected String, found: [\"x\"]`."},
	}
	for _, c := range cases {
		_, err := parseFilterValue(decodeJSON(t, c.filter))
		if err == nil || err.message() != c.want {
			t.Errorf("%s: got %v, want %q", c.filter, err, c.want)
		}
	}
}

func TestFilterNotFilterableNamesTheAttribute(t *testing.T) {
	node, perr := parseFilterString(`"many" = "Glass"`)
	if perr != nil {
		t.Fatal(perr.message())
	}
	err := checkFilterable(node, filterableAttributes)
	want := "Attribute `many` is not filterable. Available filterable attribute patterns are: `id`, `path`, `pathPrefixes`, `project`, `status`, `version`.\n2:6 \"many\" = \"Glass\""
	if err == nil || err.message() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	node, _ = parseFilterString(`_geoRadius(45.4, 9.1, 2000)`)
	if err := checkFilterable(node, filterableAttributes); err == nil || !strings.HasPrefix(err.message(), "Attribute `_geo` is not filterable.") {
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
