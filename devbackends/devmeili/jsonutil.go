package devmeili

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// field is one attribute of a document or hit, kept in order because
// Meilisearch returns attributes in the order they were indexed.
type field struct {
	name  string
	value any
}

// orderedObject is a JSON object whose keys keep their insertion order.
type orderedObject []field

// MarshalJSON writes the object in order and without HTML escaping, so
// highlight tags come out as "<em>" like the real engine's.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshalNoEscape(f.name)
		if err != nil {
			return nil, err
		}
		v, err := marshalNoEscape(f.value)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (o orderedObject) get(name string) (any, bool) {
	for _, f := range o {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// jsonText renders a decoded JSON value compactly, for error messages and the
// request log.
func jsonText(v any) string {
	b, err := marshalNoEscape(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := marshalNoEscape(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = marshalNoEscape(newError("internal", "encoding response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, e *apiError) { writeJSON(w, e.status, e) }

// readJSONBody enforces the engine's body rules: a JSON content type (415),
// a size cap (413) and a non-empty payload (400).
func readJSONBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *apiError) {
	const accepted = "Accepted values for the Content-Type header are: `application/json`"
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil, newError("missing_content_type", "A Content-Type header is missing. %s", accepted)
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, newError("invalid_content_type", "The Content-Type `%s` is invalid. %s", ct, accepted)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, newError("payload_too_large",
				"The provided payload reached the size limit. The maximum accepted payload size is %s.", humanBytes(limit))
		}
		return nil, newError("malformed_payload", "The json payload provided is malformed. `%v`.", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, newError("missing_payload", "A json payload is missing.")
	}
	return body, nil
}

func humanBytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d B", n)
}

// objectMember is one key of a JSON object body with its decoded value.
type objectMember struct {
	key   string
	value any
}

// decodeObject decodes a JSON object keeping its keys in order, so that the
// first offending field is the one reported, as the engine's deserializer does.
func decodeObject(body []byte) ([]objectMember, *apiError) {
	var whole any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&whole); err != nil {
		return nil, newError("malformed_payload", "The json payload provided is malformed. `%v`.", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, newError("malformed_payload", "The json payload provided is malformed. `trailing characters after the JSON value`.")
	}
	if _, ok := whole.(map[string]any); !ok {
		return nil, newError("bad_request", "Invalid value type: expected an object, but found %s", describeValue(whole))
	}
	dec = json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	_, _ = dec.Token() // the opening brace, already validated
	var members []objectMember
	for dec.More() {
		tok, _ := dec.Token()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, newError("malformed_payload", "The json payload provided is malformed. `%v`.", err)
		}
		members = append(members, objectMember{key: tok.(string), value: v})
	}
	return members, nil
}

// describeValue names a JSON value the way the engine's deserializer does in
// "expected X, but found Y" messages.
func describeValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean: `" + jsonText(t) + "`"
	case json.Number:
		s := t.String()
		switch {
		case strings.ContainsAny(s, ".eE"):
			return "a number: `" + s + "`"
		case strings.HasPrefix(s, "-"):
			return "a negative integer: `" + s + "`"
		default:
			return "a positive integer: `" + s + "`"
		}
	case string:
		return "a string: `" + jsonText(t) + "`"
	case []any:
		return "an array: `" + jsonText(t) + "`"
	default:
		return "an object: `" + jsonText(t) + "`"
	}
}

// quotedList renders names as "`a`, `b`" for "expected one of" messages.
func quotedList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = "`" + n + "`"
	}
	return strings.Join(parts, ", ")
}
