package filterexpr

import (
	"strconv"
	"strings"
	"testing"
)

// show writes n as an s-expression, to compare parses in a table.
func show(n Node) string {
	switch t := n.(type) {
	case Or:
		return "(OR " + showAll(t.Children) + ")"
	case And:
		return "(AND " + showAll(t.Children) + ")"
	case Not:
		return "(NOT " + show(t.Child) + ")"
	case Cond:
		parts := []string{t.Operator(), t.Attr.Text}
		for _, v := range t.Values {
			parts = append(parts, strconv.Quote(v))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case Geo:
		return "(geo " + t.Name.Text + ")"
	}
	return "nil"
}

func showAll(nodes []Node) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = show(n)
	}
	return strings.Join(parts, " ")
}

// Every form testdata/filter_syntax.md documents, parsed as Meilisearch
// reads it.
func TestDocumentedFilterSyntax(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`genres = horror`, `(= genres "horror")`},
		{`genres != horror`, `(!= genres "horror")`},
		{`rating > 3`, `(> rating "3")`},
		{`rating >= 3`, `(>= rating "3")`},
		{`rating < 3`, `(< rating "3")`},
		{`rating <= 3`, `(<= rating "3")`},
		{`rating 3 TO 5`, `(TO rating "3" "5")`},
		{`genres IN [horror, comedy]`, `(IN genres "horror" "comedy")`},
		{`genres NOT IN [horror]`, `(NOT IN genres "horror")`},
		{`genres IN [horror, comedy,]`, `(IN genres "horror" "comedy")`},
		{`genres IN []`, `(IN genres)`},
		{`release_date EXISTS`, `(EXISTS release_date)`},
		{`release_date NOT EXISTS`, `(NOT EXISTS release_date)`},
		{`overview IS NULL`, `(IS NULL overview)`},
		{`overview IS NOT NULL`, `(IS NOT NULL overview)`},
		{`overview IS EMPTY`, `(IS EMPTY overview)`},
		{`overview IS NOT EMPTY`, `(IS NOT EMPTY overview)`},
		{`title STARTS WITH "The"`, `(STARTS WITH title "The")`},
		{`title NOT STARTS WITH The`, `(NOT STARTS WITH title "The")`},
		{`_geoRadius(45.47, 9.18, 2000)`, `(geo _geoRadius)`},
		// NOT binds tighter than AND, AND than OR; parentheses group.
		{`a = 1 OR b = 2 AND c = 3`, `(OR (= a "1") (AND (= b "2") (= c "3")))`},
		{`NOT a = 1 AND b = 2`, `(AND (NOT (= a "1")) (= b "2"))`},
		{`(a = 1 OR b = 2) AND c = 3`, `(AND (OR (= a "1") (= b "2")) (= c "3"))`},
		{`NOT NOT a = 1`, `(NOT (NOT (= a "1")))`},
		// Quoted values: spaces, keywords as values, escaped quotes.
		{`director = 'Jordan Peele'`, `(= director "Jordan Peele")`},
		{`title = "NOT"`, `(= title "NOT")`},
		{`title = 'I\'m'`, `(= title "I'm")`},
		{`title = "say \"hi\""`, `(= title "say \"hi\"")`},
		// Keywords are upper case only: a lower-case one is a word.
		{`genres = and`, `(= genres "and")`},
		{`genres = not`, `(= genres "not")`},
		{`genres IN [or, in]`, `(IN genres "or" "in")`},
	}
	for _, c := range cases {
		n, err := Parse(c.filter)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if got := show(n); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.filter, got, c.want)
		}
	}
}

// What the documented syntax refuses, with the start of the engine's
// message: keywords in other cases are not keywords, so the words after
// them are left over or the condition has no operator.
func TestDocumentedFilterSyntaxRefusals(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`genres = horror and genres = comedy`, "Found unexpected characters at the end of the filter: `and genres = comedy`."},
		{`genres = horror Or genres = comedy`, "Found unexpected characters at the end of the filter: `Or genres = comedy`."},
		{`not genres = horror`, "Was expecting an operation"},
		{`genres in [horror]`, "Was expecting an operation"},
		{`genres not in [horror]`, "Was expecting an operation"},
		{`release_date exists`, "Was expecting an operation"},
		{`overview is null`, "Was expecting an operation"},
		{`rating 3 to 5`, "Was expecting an operation"},
		{`title starts with The`, "Was expecting an operation"},
		{`genres = AND`, "Was expecting a value but instead got `AND`, which is a reserved keyword."},
		{`genres = WITH`, "Was expecting a value but instead got `WITH`, which is a reserved keyword."},
		{`genres IN [horror, NOT]`, "Was expecting a value but instead got `NOT`, which is a reserved keyword."},
		{`title CONTAINS kefir`, "Using `CONTAINS` in a filter requires enabling the `contains filter` experimental feature."},
		{`title = 'open`, "Expression `'open` is missing the following closing delimiter: `'`."},
	}
	for _, c := range cases {
		n, err := Parse(c.filter)
		if err == nil {
			t.Errorf("%s: parsed as %s, want an error", c.filter, show(n))
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got  %q\n want %q…", c.filter, err.Error(), c.want)
		}
	}
}

// The array form: outer elements ANDed, an inner array's strings ORed.
func TestDocumentedArrayForm(t *testing.T) {
	n, err := ParseValue(decodeJSON(t, `[["genres = horror", "genres = comedy"], "director = 'Jordan Peele'"]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `(AND (OR (= genres "horror") (= genres "comedy")) (= director "Jordan Peele"))`
	if got := show(n); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
