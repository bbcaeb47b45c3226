package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxBodyBytes caps request bodies when the operator sets no limit.
const DefaultMaxBodyBytes = 64 << 10

// ErrBodyTooLarge is returned by ReadBody when the body exceeds the cap.
var ErrBodyTooLarge = NewError(CodePayloadTooLarge, "request body is too large")

// ReadBody reads at most max bytes of r; a longer body is ErrBodyTooLarge.
// Reading the body before authenticating keeps the connection reusable while
// still never buffering more than the cap.
func ReadBody(r io.Reader, max int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, NewError(CodeInvalidRequest, "request body could not be read")
	}
	if int64(len(body)) > max {
		return nil, ErrBodyTooLarge
	}
	return body, nil
}

// Decode strictly decodes one JSON object from body into v: unknown fields,
// wrong types, trailing data and non-object bodies are invalid_request with a
// message naming the offending field.
func Decode(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return NewError(CodeInvalidRequest, "request body is empty; expected a JSON object")
	}
	if trimmed[0] != '{' {
		return NewError(CodeInvalidRequest, "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return NewError(CodeInvalidRequest, describeDecodeError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return NewError(CodeInvalidRequest, "request body has data after the JSON object")
	}
	return nil
}

// describeDecodeError turns encoding/json errors into messages that name the
// field and what was expected, without echoing the caller's values.
func describeDecodeError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := jsonFieldPath(typeErr.Field)
		return fmt.Sprintf("field %q must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "malformed JSON: unexpected end of body"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("unknown field %s", name)
	}
	return "malformed JSON request body"
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "float64":
		return "a number"
	}
	return "of another type"
}

// jsonFieldPath drops embedded Go struct names (e.g. "Standard.") that
// encoding/json puts in field paths, keeping the JSON names the caller sent.
func jsonFieldPath(p string) string {
	var kept []string
	for _, part := range strings.Split(p, ".") {
		if part != "" && !(part[0] >= 'A' && part[0] <= 'Z') {
			kept = append(kept, part)
		}
	}
	if len(kept) == 0 {
		return "body"
	}
	return strings.Join(kept, ".")
}
