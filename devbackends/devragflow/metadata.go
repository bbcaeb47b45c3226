package devragflow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file mirrors convert_conditions and meta_filter of
// common/metadata_utils.py (docs/backends.md, RAGFlow wire details: Metadata
// conditions), including their quirks: string comparisons are
// case-insensitive, a YYYY-MM-DD value compares as a date, "in" against a
// string is a substring test, an unknown key matches nothing.

// condition is one metadata_condition entry after convert_conditions.
type condition struct {
	op    string
	key   any // the name as sent; a non-string name matches nothing
	value any
}

// operatorAliases are convert_conditions' op_mapping.
var operatorAliases = map[string]string{"is": "=", "not is": "≠", "!=": "≠", ">=": "≥", "<=": "≤"}

// parseMetadataCondition reads a truthy metadata_condition. errBody is the
// code-100 envelope for inputs on which the Python raises (its messages are
// approximated for exotic shapes).
func parseMetadataCondition(mc any) (conds []condition, logicAnd bool, errBody map[string]any) {
	obj, ok := mc.(map[string]any)
	if !ok {
		return nil, false, exceptionResult(fmt.Sprintf(`AttributeError("'%s' object has no attribute 'get'")`, pyTypeName(mc)))
	}
	logic, hasLogic := obj["logic"]
	logicAnd = !hasLogic || logic == "and"
	raw, has := obj["conditions"]
	if !has {
		return nil, logicAnd, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, false, exceptionResult(fmt.Sprintf(`TypeError("'%s' object is not iterable")`, pyTypeName(raw)))
	}
	for _, e := range list {
		c, errBody := parseCondition(e)
		if errBody != nil {
			return nil, false, errBody
		}
		conds = append(conds, c)
	}
	return conds, logicAnd, nil
}

func parseCondition(e any) (condition, map[string]any) {
	m, ok := e.(map[string]any)
	if !ok {
		return condition{}, exceptionResult(fmt.Sprintf(`TypeError("'%s' object is not subscriptable")`, pyTypeName(e)))
	}
	for _, k := range []string{"comparison_operator", "name", "value"} {
		if _, has := m[k]; !has {
			return condition{}, exceptionResult("KeyError(" + pyStringRepr(k) + ")")
		}
	}
	op, _ := m["comparison_operator"].(string)
	if alias, ok := operatorAliases[op]; ok {
		op = alias
	}
	return condition{op: op, key: m["name"], value: m["value"]}, nil
}

// filterDocuments is meta_filter over the documents of the requested
// datasets. It returns the ids of matching documents.
func filterDocuments(docs []*document, conds []condition, logicAnd bool) map[string]bool {
	var ids map[string]bool
	for _, c := range conds {
		matched := map[string]bool{}
		if key, ok := c.key.(string); ok {
			for _, d := range docs {
				if v, has := d.meta[key]; has && anyItemMatches(v, c.op, c.value) {
					matched[d.id] = true
				}
			}
		}
		switch {
		case ids == nil:
			ids = matched
		case logicAnd:
			for id := range ids {
				if !matched[id] {
					delete(ids, id)
				}
			}
			if len(ids) == 0 {
				return ids
			}
		default:
			for id := range matched {
				ids[id] = true
			}
		}
	}
	if ids == nil {
		ids = map[string]bool{}
	}
	return ids
}

// anyItemMatches is meta_filter over a stored value flattened with str():
// a list contributes each item separately, so a document matches when one
// of its items does.
func anyItemMatches(v any, op string, value any) bool {
	list, ok := v.([]any)
	if !ok {
		return metaMatches(pyStr(v), op, value)
	}
	for _, item := range list {
		if metaMatches(pyStr(item), op, value) {
			return true
		}
	}
	return false
}

// metaMatches applies one operator to one document's metadata value.
func metaMatches(input, op string, value any) bool {
	switch op {
	case "=", "≠", ">", "<", "≥", "≤":
		return compareMatches(input, op, value)
	}
	in := strings.ToLower(input)
	v := lowerValue(value)
	switch op {
	case "contains", "not contains":
		s, ok := v.(string)
		return ok && strings.Contains(in, s) == (op == "contains")
	case "in", "not in":
		switch x := v.(type) {
		case []any:
			return listHas(x, in) == (op == "in")
		case string:
			return strings.Contains(x, in) == (op == "in")
		}
		return false
	case "start with":
		return strings.HasPrefix(in, strings.ToLower(pyStr(value)))
	case "end with":
		return strings.HasSuffix(in, strings.ToLower(pyStr(value)))
	case "empty":
		return in == ""
	case "not empty":
		return in != ""
	}
	return false
}

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// compareMatches is meta_filter's comparison branch: a date value compares
// only with date inputs; otherwise both sides go through ast.literal_eval
// (so "1.5" is a number) and strings are lowercased.
func compareMatches(input, op string, value any) bool {
	in := strings.TrimSpace(input)
	if val := strings.TrimSpace(pyStr(value)); isoDate.MatchString(val) {
		return isoDate.MatchString(in) && compareValues(op, in, val)
	}
	a, b := any(input), value
	if ev, ok := literalEval(input); ok {
		a = ev
		if s, isStr := value.(string); isStr {
			if ev2, ok2 := literalEval(s); ok2 {
				b = ev2
			}
		}
	}
	return compareValues(op, normalizeScalar(a), normalizeScalar(b))
}

// normalizeScalar lowercases strings and turns JSON numbers and booleans
// into float64, so Python's 1 == 1.0 == True holds.
func normalizeScalar(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToLower(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	case bool:
		if x {
			return 1.0
		}
		return 0.0
	}
	return v
}

func compareValues(op string, a, b any) bool {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return ordered(op, compareFloat(x, y))
		}
	case string:
		if y, ok := b.(string); ok {
			return ordered(op, strings.Compare(x, y))
		}
	}
	// Mixed types: Python's == is False, != is True, ordering raises.
	return op == "≠"
}

func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func ordered(op string, cmp int) bool {
	switch op {
	case "=":
		return cmp == 0
	case "≠":
		return cmp != 0
	case ">":
		return cmp > 0
	case "<":
		return cmp < 0
	case "≥":
		return cmp >= 0
	case "≤":
		return cmp <= 0
	}
	return false
}

var (
	pyIntLiteral   = regexp.MustCompile(`^[+-]?(0|[1-9][0-9]*)$`)
	pyFloatLiteral = regexp.MustCompile(`^[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?$`)
)

// literalEval covers the scalar part of ast.literal_eval.
func literalEval(s string) (any, bool) {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "True":
		return true, true
	case s == "False":
		return false, true
	case s == "None":
		return nil, true
	case pyIntLiteral.MatchString(s) || pyFloatLiteral.MatchString(s):
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0]:
		return s[1 : len(s)-1], true
	}
	return nil, false
}

func lowerValue(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToLower(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = lowerValue(e)
		}
		return out
	}
	return v
}

func listHas(list []any, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// metadataRequest is what reference_metadata (or the flat include_metadata
// and metadata_fields keys) asks for; fields nil means every field.
type metadataRequest struct {
	include bool
	fields  []string
}

// resolveReferenceMetadata mirrors resolve_reference_metadata_preferences.
func resolveReferenceMetadata(req map[string]any) metadataRequest {
	resolved := map[string]any{}
	if rm, ok := req["reference_metadata"].(map[string]any); ok {
		for k, v := range rm {
			resolved[k] = v
		}
	}
	if v, has := req["include_metadata"]; has {
		if _, set := resolved["include"]; !set {
			resolved["include"] = truthy(v)
		}
	}
	if v, has := req["metadata_fields"]; has {
		if _, set := resolved["fields"]; !set {
			resolved["fields"] = v
		}
	}
	mr := metadataRequest{include: truthy(resolved["include"])}
	if list, ok := resolved["fields"].([]any); ok {
		mr.fields = append([]string{}, stringList(list)...)
	}
	return mr
}

// documentMetadata is the document_metadata of a chunk, or nil when
// enrich_chunks_with_document_metadata would add none.
func (mr metadataRequest) documentMetadata(d *document) map[string]any {
	if !mr.include || (mr.fields != nil && len(mr.fields) == 0) {
		return nil
	}
	out := map[string]any{}
	for k, v := range d.meta {
		if mr.fields == nil || containsString(mr.fields, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
