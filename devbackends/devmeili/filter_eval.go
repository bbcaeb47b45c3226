package devmeili

import (
	"slices"
	"sort"
	"strings"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

// matches reports whether doc passes the parsed filter n (package
// filterexpr, the grammar the gate parses with too). Negated conditions
// are the complement of the positive one, as the engine evaluates them.
func matches(n filterexpr.Node, doc orderedObject) bool {
	switch t := n.(type) {
	case filterexpr.Or:
		return slices.ContainsFunc(t.Children, func(c filterexpr.Node) bool { return matches(c, doc) })
	case filterexpr.And:
		return !slices.ContainsFunc(t.Children, func(c filterexpr.Node) bool { return !matches(c, doc) })
	case filterexpr.Not:
		return !matches(t.Child, doc)
	case filterexpr.Cond:
		return condMatches(t, doc) != t.Negated
	}
	return false // a geo call: this index has no _geo field
}

// normalizeFacet is the engine's facet normalisation: string equality in
// filters is case-insensitive and ignores surrounding blanks.
func normalizeFacet(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func condMatches(n filterexpr.Cond, doc orderedObject) bool {
	raw, present := doc.get(n.Attr.Text)
	switch n.Op {
	case "EXISTS":
		return present
	case "IS NULL":
		return present && raw == nil
	case "IS EMPTY":
		return present && isEmptyValue(raw)
	}
	for _, s := range stringValues(raw) {
		if matchesString(n, normalizeFacet(s)) {
			return true
		}
	}
	return false
}

// matchesString compares one normalised value; array fields match when any
// element does. Order comparisons on strings are lexicographic.
func matchesString(n filterexpr.Cond, s string) bool {
	if n.Op == "IN" {
		for _, candidate := range n.Values {
			if s == normalizeFacet(candidate) {
				return true
			}
		}
		return false
	}
	v := normalizeFacet(n.Values[0])
	switch n.Op {
	case "=":
		return s == v
	case ">":
		return s > v
	case ">=":
		return s >= v
	case "<":
		return s < v
	case "<=":
		return s <= v
	case "TO":
		return s >= v && s <= normalizeFacet(n.Values[1])
	case "STARTS WITH":
		return strings.HasPrefix(s, v)
	}
	return false
}

func stringValues(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []string:
		return t
	}
	return nil
}

func isEmptyValue(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case []string:
		return len(t) == 0
	}
	return false
}

// checkFilterable reports the first attribute of node that is not filterable,
// with the engine's message (docs/backends.md, Meilisearch wire details:
// Errors).
func checkFilterable(node filterexpr.Node, filterable []string) *filterexpr.Error {
	if node == nil {
		return nil
	}
	allowed := map[string]bool{}
	for _, a := range filterable {
		allowed[a] = true
	}
	var bad *filterexpr.Span
	node.Walk(func(n filterexpr.Node) {
		if bad != nil {
			return
		}
		switch t := n.(type) {
		case filterexpr.Cond:
			if !allowed[t.Attr.Text] {
				bad = &t.Attr
			}
		case filterexpr.Geo:
			bad = &filterexpr.Span{Text: "_geo", Start: t.Name.Start, End: t.Name.End, Src: t.Name.Src}
		}
	})
	if bad == nil {
		return nil
	}
	sorted := append([]string(nil), filterable...)
	sort.Strings(sorted)
	return filterexpr.At(*bad, "Attribute `"+bad.Text+"` is not filterable. Available filterable attribute patterns are: "+quotedList(sorted)+".")
}

// fuseFilters ANDs a tenant-token rule filter after the request filter, the
// way the engine's fuse_filters does: both become arrays, request parts first.
func fuseFilters(request, rule any) any {
	if request == nil {
		return rule
	}
	if rule == nil {
		return request
	}
	return append(asFilterArray(request), asFilterArray(rule)...)
}

func asFilterArray(v any) []any {
	if a, ok := v.([]any); ok {
		return append([]any(nil), a...)
	}
	return []any{v}
}
