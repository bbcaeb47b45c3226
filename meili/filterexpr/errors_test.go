package filterexpr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFilterBlankMeansNoFilter(t *testing.T) {
	for _, f := range []string{"", "   "} {
		if node, err := Parse(f); node != nil || err != nil {
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
		_, err := Parse(c.filter)
		if err == nil {
			t.Errorf("%s: parsed, want an error", c.filter)
			continue
		}
		if got := err.Error(); got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.filter, got, c.want)
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
		_, err := ParseValue(decodeJSON(t, c.filter))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.filter, err, c.want)
		}
	}
}

func TestFilterContainsIsFeatureGated(t *testing.T) {
	_, err := Parse("doggo CONTAINS kefir")
	if err == nil || !err.FeatureGated {
		t.Fatalf("CONTAINS: got %v, want a feature-gated error", err)
	}
	if want := fixtureMessage(t, "error.feature_not_enabled.contains.json"); err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
}

func TestFilterDepthIsBounded(t *testing.T) {
	for _, f := range []string{
		strings.Repeat("NOT ", 200) + "a = b",
		strings.Repeat("(", 200) + "a = b" + strings.Repeat(")", 200),
	} {
		_, err := Parse(f)
		if err == nil || !strings.HasPrefix(err.Error(), "The filter exceeded the maximum depth limit.") {
			t.Errorf("deep filter: got %v, want the depth limit error", err)
		}
	}
	p := Parser{MaxDepth: 2}
	if _, err := p.Parse("((a = b))"); err != nil {
		t.Errorf("two levels within MaxDepth 2: %v", err)
	}
	if _, err := p.Parse("NOT ((a = b))"); err == nil {
		t.Error("three levels passed MaxDepth 2")
	}
}

func TestFilterMaxBytes(t *testing.T) {
	p := Parser{MaxBytes: 10}
	if _, err := p.Parse("a = 123456"); err != nil {
		t.Errorf("10 bytes: %v", err)
	}
	if _, err := p.ParseValue([]any{"a = 1234567"}); err == nil || err.Error() != "The filter is longer than 10 bytes." {
		t.Errorf("11 bytes in an array: %v", err)
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
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Message string }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.Message
}
