package meili

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

// ClientFilterAttributes are the attributes a caller's own filter may name
// (the page index's filterable attributes, docs/backends.md: Write side).
var ClientFilterAttributes = []string{"id", "path", "pathPrefixes", "project", "version", "status"}

// Limits of a caller's filter: a docs search box sends a few conditions.
const (
	maxClientFilterBytes = 2048
	maxClientFilterDepth = 8
	maxClientConditions  = 64
)

// clientFilterParser is Meilisearch's grammar (package filterexpr, the one
// the development Meilisearch evaluates) within the caller's bounds.
var clientFilterParser = filterexpr.Parser{MaxDepth: maxClientFilterDepth, MaxBytes: maxClientFilterBytes}

// ClientFilter parses a caller's filter (Meilisearch's string form, or its
// array form: outer elements ANDed, inner arrays ORed) and renders it again
// from what was parsed, each value quoted with Quote. Only =, !=, IN, NOT IN,
// NOT, AND, OR and parentheses over ClientFilterAttributes are accepted;
// keywords are upper case only, as Meilisearch reads them. The gate never
// sends the caller's text: a rendered filter cannot close a parenthesis of
// the filter it is ANDed with (And), so a caller's filter can only narrow
// the decided one. nil or "" gives "".
func ClientFilter(v any) (string, error) {
	node, perr := clientFilterParser.ParseValue(v)
	if perr != nil {
		return "", perr
	}
	if node == nil {
		return "", nil
	}
	conditions := 0
	node.Walk(func(n filterexpr.Node) {
		if _, ok := n.(filterexpr.Cond); ok {
			conditions++
		}
	})
	if conditions > maxClientConditions {
		return "", fmt.Errorf("filter has more than %d conditions", maxClientConditions)
	}
	if items, ok := v.([]any); ok {
		return renderClientArray(items)
	}
	return renderClientFilter(node)
}

// renderClientArray renders the array form element by element (ParseValue
// has checked its shape and syntax): elements ANDed, each in parentheses,
// an element that is an array ORs its strings.
func renderClientArray(items []any) (string, error) {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		var part string
		var err error
		switch x := it.(type) {
		case string:
			part, err = renderClientString(x)
		case []any:
			part, err = renderClientOr(x)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
	}
	return And(parts...), nil
}

func renderClientOr(items []any) (string, error) {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		s, _ := it.(string) // ParseValue has checked
		part, err := renderClientString(s)
		if err != nil {
			return "", err
		}
		if part != "" {
			parts = append(parts, "("+part+")")
		}
	}
	return strings.Join(parts, " OR "), nil
}

func renderClientString(s string) (string, error) {
	node, perr := clientFilterParser.Parse(s)
	if perr != nil {
		return "", perr
	}
	if node == nil {
		return "", nil
	}
	return renderClientFilter(node)
}

// renderClientFilter writes n again, every operand of AND, OR and NOT in
// parentheses so the rendering keeps the parsed grouping and renders to
// itself when parsed again.
func renderClientFilter(n filterexpr.Node) (string, error) {
	switch t := n.(type) {
	case filterexpr.Or:
		return renderJoined(t.Children, "OR")
	case filterexpr.And:
		return renderJoined(t.Children, "AND")
	case filterexpr.Not:
		inner, err := renderClientFilter(t.Child)
		return "NOT (" + inner + ")", err
	case filterexpr.Cond:
		return renderCondition(t)
	case filterexpr.Geo:
		return "", notFilterable(t.Name.Text)
	}
	return "", fmt.Errorf("filter: unexpected %T", n)
}

func renderJoined(children []filterexpr.Node, word string) (string, error) {
	parts := make([]string, len(children))
	for i, c := range children {
		part, err := renderClientFilter(c)
		if err != nil {
			return "", err
		}
		parts[i] = part
	}
	return "(" + strings.Join(parts, ") "+word+" (") + ")", nil
}

// renderCondition is attr = v, attr != v, attr IN [..] or attr NOT IN [..].
func renderCondition(c filterexpr.Cond) (string, error) {
	i := slices.Index(ClientFilterAttributes, c.Attr.Text)
	if i < 0 {
		return "", notFilterable(c.Attr.Text)
	}
	attr := ClientFilterAttributes[i]
	switch c.Op {
	case "=":
		return attr + " " + c.Operator() + " " + Quote(c.Values[0]), nil
	case "IN":
		return attr + " " + c.Operator() + " " + quoteList(c.Values), nil
	}
	return "", fmt.Errorf("filter: only =, !=, IN and NOT IN compare values here, not %s", c.Operator())
}

func notFilterable(attr string) error {
	return fmt.Errorf("filter: %q is not a filterable attribute; filterable: %s",
		cut(attr, 32), strings.Join(ClientFilterAttributes, ", "))
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
