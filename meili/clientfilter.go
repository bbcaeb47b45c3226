package meili

import (
	"errors"
	"fmt"
	"strings"
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

// ClientFilter parses a caller's filter (Meilisearch's string form, or its
// array form: outer elements ANDed, inner arrays ORed) and renders it again
// from what was parsed, each value quoted with Quote. Only =, !=, IN, NOT IN,
// NOT, AND, OR and parentheses over ClientFilterAttributes are accepted.
// The gate never sends the caller's text: a rendered filter cannot close a
// parenthesis of the filter it is ANDed with (And), so a caller's filter
// can only narrow the decided one. nil or "" gives "".
func ClientFilter(v any) (string, error) {
	switch f := v.(type) {
	case nil:
		return "", nil
	case string:
		return parseClientFilter(f)
	case []any:
		return clientFilterArray(f)
	}
	return "", errors.New("filter must be a string or an array of strings and arrays of strings")
}

// clientFilterArray renders the array form: elements ANDed, an element that
// is an array ORs its strings.
func clientFilterArray(items []any) (string, error) {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		var part string
		var err error
		switch x := it.(type) {
		case string:
			part, err = parseClientFilter(x)
		case []any:
			part, err = clientFilterOr(x)
		default:
			err = errors.New("filter array elements must be strings or arrays of strings")
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
	}
	return And(parts...), nil
}

func clientFilterOr(items []any) (string, error) {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return "", errors.New("filter arrays inside the filter array must hold strings only")
		}
		part, err := parseClientFilter(s)
		if err != nil {
			return "", err
		}
		if part != "" {
			parts = append(parts, "("+part+")")
		}
	}
	return strings.Join(parts, " OR "), nil
}

func parseClientFilter(s string) (string, error) {
	if len(s) > maxClientFilterBytes {
		return "", fmt.Errorf("filter is longer than %d bytes", maxClientFilterBytes)
	}
	toks, err := lexFilter(s)
	if err != nil {
		return "", err
	}
	if len(toks) == 0 {
		return "", nil
	}
	p := &filterParser{toks: toks}
	out, err := p.or(0)
	if err != nil {
		return "", err
	}
	if p.pos < len(p.toks) {
		return "", fmt.Errorf("filter: unexpected %s", p.toks[p.pos].describe())
	}
	return out, nil
}
