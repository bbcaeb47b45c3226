package devragflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RetCode values of common/constants.py (docs/backends.md, RAGFlow wire
// details: Envelope).
const (
	codeSuccess        = 0
	codeException      = 100
	codeArgument       = 101
	codeData           = 102
	codeAuthentication = 109
	codeUnauthorized   = 401
	codeNotFound       = 404
)

// maxBodyBytes caps every request body, as the brief asks.
const maxBodyBytes = 1 << 20

// pyFloat marshals like Python's repr(float), so a score of 1 reads "1.0"
// the way RAGFlow sends it rather than Go's "1".
type pyFloat float64

// MarshalJSON implements json.Marshaler.
func (f pyFloat) MarshalJSON() ([]byte, error) { return []byte(pyFloatRepr(float64(f))), nil }

// pyFloatRepr formats f as Python's repr does; NaN and Inf become null, as
// G2's _sanitize_json_floats does.
func pyFloatRepr(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e16 || a < 1e-4 {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// jsonResult is get_json_result: {code, message, data}.
func jsonResult(code int, message string, data any) map[string]any {
	return map[string]any{"code": code, "message": message, "data": data}
}

// result is get_result on success: {code:0[, data]} without a message.
func result(data any) map[string]any {
	if data == nil {
		return map[string]any{"code": codeSuccess}
	}
	return map[string]any{"code": codeSuccess, "data": data}
}

// errorResult is get_error_data_result / get_result on error: {code, message}.
func errorResult(code int, message string) map[string]any {
	return map[string]any{"code": code, "message": message}
}

// exceptionResult is server_error_response: an uncaught Python exception
// reported as get_json_result(code=100, message=repr(e)).
func exceptionResult(repr string) map[string]any {
	return jsonResult(codeException, repr, nil)
}

// encodeFlaskJSON serialises v as Quart's jsonify does: sorted keys (Go
// sorts map keys), compact separators, non-ASCII escaped, no HTML escaping.
func encodeFlaskJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return asciiEscape(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// asciiEscape rewrites every non-ASCII rune of a JSON text as \uXXXX
// (surrogate pairs above the BMP), which is Python's ensure_ascii=True.
// Non-ASCII bytes only occur inside JSON strings, so this is safe.
func asciiEscape(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r < utf8.RuneSelf:
			out.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes()
}

// writeJSON writes body with the given HTTP status.
func writeJSON(w http.ResponseWriter, status int, body any) {
	raw, err := encodeFlaskJSON(body)
	if err != nil {
		status = http.StatusInternalServerError
		raw = []byte(`{"code":100,"data":null,"message":"encoding response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

// readJSONObject reads a capped JSON body that must be an object. On failure
// it returns the envelope RAGFlow would send. Quart's request.get_json()
// raises BadRequest on malformed JSON and RequestEntityTooLarge past the cap;
// both reach the app's error handler, server_error_response, which answers
// HTTP 200 code 100 with repr(e). A non-object body makes the handler's first
// req.get(...) raise AttributeError, also answered with code 100.
func readJSONObject(w http.ResponseWriter, r *http.Request) (map[string]any, map[string]any) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, exceptionResult("<RequestEntityTooLarge '413: Request Entity Too Large'>")
	}
	if err != nil {
		return nil, exceptionResult("<BadRequest '400: Bad Request'>")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, exceptionResult("<BadRequest '400: Bad Request'>")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, exceptionResult(fmt.Sprintf(`AttributeError("'%s' object has no attribute 'get'")`, pyTypeName(v)))
	}
	return obj, nil
}
