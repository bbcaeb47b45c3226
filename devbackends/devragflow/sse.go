package devragflow

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// RAGFlow writes each SSE event as "data:" + json.dumps(payload,
// ensure_ascii=False) + "\n\n" (docs/backends.md, RAGFlow wire details:
// Stream): no space after the colon, one line of JSON, keys in insertion
// order, ", " and ": " separators and raw UTF-8. object and pyDumps reproduce
// that serialisation.

// object is a JSON object whose keys keep insertion order, as a Python dict.
type object []field

type field struct {
	key   string
	value any
}

// pyDumps is json.dumps(v, ensure_ascii=False) with default separators.
func pyDumps(v any) string {
	var b strings.Builder
	writePy(&b, v)
	return b.String()
}

func writePy(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(pyFloatRepr(x))
	case pyFloat:
		b.WriteString(pyFloatRepr(float64(x)))
	case string:
		writePyString(b, x)
	case object:
		writePyObject(b, x)
	case map[string]any:
		writePyObject(b, sortedObject(x))
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, e)
		}
		b.WriteString("]")
	default:
		writePyString(b, fmt.Sprint(x))
	}
}

func writePyObject(b *strings.Builder, o object) {
	b.WriteString("{")
	for i, f := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		writePyString(b, f.key)
		b.WriteString(": ")
		writePy(b, f.value)
	}
	b.WriteString("}")
}

func sortedObject(m map[string]any) object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := make(object, len(keys))
	for i, k := range keys {
		o[i] = field{k, m[k]}
	}
	return o
}

// writePyString escapes like json's py_encode_basestring: quotes,
// backslashes and control characters only.
func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// sseStream writes RAGFlow's event stream.
type sseStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE sends the headers of session_completion's stream response.
func startSSE(w http.ResponseWriter) *sseStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseStream{w: w, rc: http.NewResponseController(w)}
}

// event writes one "data:" event and flushes it to the client.
func (s *sseStream) event(payload any) error {
	if _, err := fmt.Fprintf(s.w, "data:%s\n\n", pyDumps(payload)); err != nil {
		return err
	}
	return s.rc.Flush()
}

// terminator is the last event of every G2 stream.
func terminator() object {
	return object{{"code", 0}, {"message", ""}, {"data", true}}
}
