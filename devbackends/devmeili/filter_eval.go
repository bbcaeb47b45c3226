package devmeili

import (
	"sort"
	"strings"
)

// filterNode is a parsed filter; matches reports whether a document passes.
type filterNode interface {
	matches(doc orderedObject) bool
	walk(visit func(filterNode))
}

type orNode struct{ children []filterNode }
type andNode struct{ children []filterNode }
type notNode struct{ child filterNode }

// condNode is one condition. "!=", "NOT IN" and the other negated forms are
// parsed as notNode around the positive condition, which is how the engine
// evaluates them too (the complement of the matching documents).
type condNode struct {
	attr   span
	op     string // = > >= < <= TO IN EXISTS "IS NULL" "IS EMPTY" "STARTS WITH"
	values []string
}

// geoNode is a geo function call; it never matches because this index has no
// _geo field, and validation rejects it first.
type geoNode struct{ name span }

func (n orNode) matches(doc orderedObject) bool {
	for _, c := range n.children {
		if c.matches(doc) {
			return true
		}
	}
	return false
}

func (n andNode) matches(doc orderedObject) bool {
	for _, c := range n.children {
		if !c.matches(doc) {
			return false
		}
	}
	return true
}

func (n notNode) matches(doc orderedObject) bool { return !n.child.matches(doc) }
func (n geoNode) matches(orderedObject) bool     { return false }

func (n orNode) walk(visit func(filterNode)) {
	visit(n)
	for _, c := range n.children {
		c.walk(visit)
	}
}

func (n andNode) walk(visit func(filterNode)) {
	visit(n)
	for _, c := range n.children {
		c.walk(visit)
	}
}

func (n notNode) walk(visit func(filterNode))  { visit(n); n.child.walk(visit) }
func (n condNode) walk(visit func(filterNode)) { visit(n) }
func (n geoNode) walk(visit func(filterNode))  { visit(n) }

// normalizeFacet is the engine's facet normalisation: string equality in
// filters is case-insensitive and ignores surrounding blanks.
func normalizeFacet(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (n condNode) matches(doc orderedObject) bool {
	raw, present := doc.get(n.attr.text)
	switch n.op {
	case "EXISTS":
		return present
	case "IS NULL":
		return present && raw == nil
	case "IS EMPTY":
		return present && isEmptyValue(raw)
	}
	for _, s := range stringValues(raw) {
		if n.matchesString(normalizeFacet(s)) {
			return true
		}
	}
	return false
}

// matchesString compares one normalised value; array fields match when any
// element does. Order comparisons on strings are lexicographic.
func (n condNode) matchesString(s string) bool {
	if n.op == "IN" {
		for _, candidate := range n.values {
			if s == normalizeFacet(candidate) {
				return true
			}
		}
		return false
	}
	v := normalizeFacet(n.values[0])
	switch n.op {
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
		return s >= v && s <= normalizeFacet(n.values[1])
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

// parseFilterValue parses a request or tenant-token filter: a string, the
// array form (outer AND, inner OR, strings only) or nil (docs/backends.md,
// Meilisearch wire details: Filter language).
func parseFilterValue(v any) (filterNode, *filterError) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return parseFilterString(t)
	case []any:
		return parseFilterArray(t)
	}
	return nil, filterTypeError("String, Array", v)
}

func parseFilterArray(items []any) (filterNode, *filterError) {
	var ands []filterNode
	for _, item := range items {
		switch t := item.(type) {
		case string:
			node, err := parseFilterString(t)
			if err != nil {
				return nil, err
			}
			if node != nil {
				ands = append(ands, node)
			}
		case []any:
			node, err := parseFilterOr(t)
			if err != nil {
				return nil, err
			}
			if node != nil {
				ands = append(ands, node)
			}
		default:
			return nil, filterTypeError("String, [String]", item)
		}
	}
	return joinNodes(ands, func(c []filterNode) filterNode { return andNode{c} }), nil
}

func parseFilterOr(items []any) (filterNode, *filterError) {
	var ors []filterNode
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, filterTypeError("String", item)
		}
		node, err := parseFilterString(s)
		if err != nil {
			return nil, err
		}
		if node != nil {
			ors = append(ors, node)
		}
	}
	return joinNodes(ors, func(c []filterNode) filterNode { return orNode{c} }), nil
}

func joinNodes(nodes []filterNode, join func([]filterNode) filterNode) filterNode {
	switch len(nodes) {
	case 0:
		return nil
	case 1:
		return nodes[0]
	}
	return join(nodes)
}

func filterTypeError(expected string, found any) *filterError {
	return &filterError{msg: "Invalid syntax for the filter parameter: `expected " + expected + ", found: " + jsonText(found) + "`."}
}

// checkFilterable reports the first attribute of node that is not filterable,
// with the engine's message (docs/backends.md, Meilisearch wire details:
// Errors).
func checkFilterable(node filterNode, filterable []string) *filterError {
	if node == nil {
		return nil
	}
	allowed := map[string]bool{}
	for _, a := range filterable {
		allowed[a] = true
	}
	var bad *span
	node.walk(func(n filterNode) {
		if bad != nil {
			return
		}
		switch t := n.(type) {
		case condNode:
			if !allowed[t.attr.text] {
				bad = &t.attr
			}
		case geoNode:
			bad = &span{text: "_geo", start: t.name.start, end: t.name.end, src: t.name.src}
		}
	})
	if bad == nil {
		return nil
	}
	sorted := append([]string(nil), filterable...)
	sort.Strings(sorted)
	return &filterError{
		msg:        "Attribute `" + bad.text + "` is not filterable. Available filterable attribute patterns are: " + quotedList(sorted) + ".",
		positioned: true, start: bad.start, end: bad.end, src: bad.src,
	}
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
