package devragflow

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The handlers mirror Python code that works on decoded JSON with Python's
// truthiness, str(), float() and int(). These helpers reproduce just enough
// of that for the messages RAGFlow sends back to match.

// truthy is Python's bool(v) for a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyTypeName is type(v).__name__ for a decoded JSON value.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pyStr is str(v), used where RAGFlow formats a client value into a message.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is repr(v) for a decoded JSON value.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return pyNumberRepr(x)
	case string:
		return pyStringRepr(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return pyDictRepr(x)
	}
	return fmt.Sprint(v)
}

func pyNumberRepr(n json.Number) string {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	f, _ := n.Float64()
	if math.IsInf(f, 0) {
		return "inf"
	}
	return pyFloatRepr(f)
}

func pyDictRepr(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = pyStringRepr(k) + ": " + pyRepr(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// pyStringRepr quotes s as Python does: single quotes unless s holds a single
// quote and no double quote.
func pyStringRepr(s string) string {
	quote := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = `"`
	}
	var b strings.Builder
	b.WriteString(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == quote:
			b.WriteString(`\` + quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(quote)
	return b.String()
}

// pyFloatArg is float(v); on failure it returns repr() of the exception.
func pyFloatArg(v any) (float64, string) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, ""
		}
		return 0, ""
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, fmt.Sprintf("OverflowError(%s)", pyStringRepr("int too large to convert to float"))
		}
		return f, ""
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Sprintf("ValueError(%s)", pyStringRepr("could not convert string to float: "+pyStringRepr(x)))
		}
		return f, ""
	}
	return 0, fmt.Sprintf("TypeError(%s)", pyStringRepr(
		fmt.Sprintf("float() argument must be a string or a real number, not '%s'", pyTypeName(v))))
}

// pyIntArg is int(v); on failure it returns repr() of the exception.
func pyIntArg(v any) (int, string) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, ""
		}
		return 0, ""
	case json.Number:
		if i, err := strconv.Atoi(string(x)); err == nil {
			return i, ""
		}
		f, _ := x.Float64()
		return int(f), ""
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Sprintf("ValueError(%s)", pyStringRepr("invalid literal for int() with base 10: "+pyStringRepr(x)))
		}
		return i, ""
	}
	return 0, fmt.Sprintf("TypeError(%s)", pyStringRepr(
		fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyTypeName(v))))
}

// restPage is validate_rest_api_page: an invalid or non-positive page falls
// back silently to 1.
func restPage(v any, present bool) int {
	if !present {
		return 1
	}
	p, failed := pyIntArg(v)
	if failed != "" || p < 1 {
		return 1
	}
	return p
}

// restPageSize is validate_rest_api_page_size: invalid values fall back to
// 30, values above 100 raise ValueError (reported as code 100).
func restPageSize(v any, present bool) (int, string) {
	if !present {
		return 30, ""
	}
	size, failed := pyIntArg(v)
	if failed != "" || size < 1 {
		return 30, ""
	}
	if size > 100 {
		return 0, "ValueError('page_size must be less than or equal to 100')"
	}
	return size, ""
}

// stringList returns the string elements of a decoded JSON list.
func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
