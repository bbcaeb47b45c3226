package devragflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// readStrictJSON is validate_and_parse_json_request (docs/backends.md,
// RAGFlow write side), which the strict write routes (create dataset, delete
// documents) go through: a JSON content type, a parsable body, an object —
// each failure a code 101.
func readStrictJSON(w http.ResponseWriter, r *http.Request) (map[string]any, map[string]any) {
	ct := r.Header.Get("Content-Type")
	if media, _, _ := mime.ParseMediaType(ct); media != "application/json" {
		return nil, errorResult(codeArgument, "Unsupported content type: Expected application/json, got "+ct)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, exceptionResult("<RequestEntityTooLarge '413: Request Entity Too Large'>")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err != nil || dec.Decode(&v) != nil || dec.More() {
		return nil, errorResult(codeArgument, "Malformed JSON syntax: Missing commas/brackets or invalid encoding")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errorResult(codeArgument, "Invalid request payload: expected object, got "+pyTypeName(v))
	}
	return obj, nil
}

// fieldError is one line of format_validation_error_message: the pydantic
// error of one field, its value cut to 125 characters.
func fieldError(field, message string, value any) string {
	v := pyStr(value)
	if utf8.RuneCountInString(v) > 125 {
		v = string([]rune(v)[:125]) + "..."
	}
	return "Field: <" + field + "> - Message: <" + message + "> - Value: <" + v + ">"
}

// validationResult joins field errors as the strict routes report them.
func validationResult(code int, errs []string) map[string]any {
	return errorResult(code, strings.Join(errs, "\n"))
}
