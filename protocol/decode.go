package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DefaultMaxBodyBytes caps request bodies when the operator sets no limit.
const DefaultMaxBodyBytes = 64 << 10

// ErrBodyTooLarge is returned by ReadBody when the body exceeds the cap.
var ErrBodyTooLarge = NewError(CodePayloadTooLarge, "request body is too large")

// ReadBody reads at most max bytes of r; a longer body is ErrBodyTooLarge.
// The gateway calls it only once the caller is authenticated (or allowed in
// anonymously), so an unauthenticated caller never makes it buffer anything.
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

// strictJSON is the one reading of a request body (docs/protocol.md "Strict JSON"):
// names match exactly (no case or Unicode folding), a name appears once per
// object, strings and names are valid UTF-8, and no member the request type
// does not know is accepted. A proxy or WAF in front of the gate that reads
// the body as JSON therefore cannot see a different request than the gate
// does. These are the defaults of encoding/json/v2 (go-json-experiment),
// spelled out so a change of defaults cannot loosen them.
var strictJSON = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// Decode strictly decodes one JSON object from body into v (strictJSON):
// unknown, duplicate or case-variant names, invalid UTF-8, wrong types,
// trailing data and non-object bodies are invalid_request with a message
// naming the offending field, never echoing the caller's values.
func Decode(body []byte, v any) error {
	trimmed := bytes.Trim(body, jsonWhitespace)
	if len(trimmed) == 0 {
		return NewError(CodeInvalidRequest, "request body is empty; expected a JSON object")
	}
	if trimmed[0] != '{' {
		return NewError(CodeInvalidRequest, notAnObject(trimmed))
	}
	if sd, ok := v.(simpleDecoder); ok && sd.decodeSimple(trimmed) {
		return nil
	}
	return decodeStrict(trimmed, v)
}

// notAnObject says why a body that does not start with '{' is refused,
// naming the two mistakes a client can make without seeing them: a byte
// order mark some editors and Windows tools put first (RFC 8259 §8.1:
// JSON is sent without one), and a compressed body.
func notAnObject(trimmed []byte) string {
	switch {
	case bytes.HasPrefix(trimmed, []byte("\xef\xbb\xbf")):
		return "request body starts with a UTF-8 byte order mark; send the JSON object without one"
	case bytes.HasPrefix(trimmed, []byte("\x1f\x8b")):
		return "request body is gzip-compressed; send the JSON object uncompressed"
	}
	return "request body must be a JSON object"
}

// ErrCompressedBody refuses a request body sent with a Content-Encoding:
// the gate reads only plain JSON, and says so rather than calling the
// compressed bytes malformed. The caller's coding is not echoed.
var ErrCompressedBody = NewError(CodeInvalidRequest, "request bodies are read uncompressed; send the JSON object without a Content-Encoding")

// Compressed reports whether a Content-Encoding header value names a
// coding other than identity.
func Compressed(contentEncoding string) bool {
	ce := strings.TrimSpace(contentEncoding)
	return ce != "" && !strings.EqualFold(ce, "identity")
}

// decodeStrict is Decode's reading of a trimmed body that starts with '{'.
func decodeStrict(trimmed []byte, v any) error {
	pd := decoderPool.Get().(*pooledDecoder)
	defer pd.release()
	pd.body = *bytes.NewBuffer(trimmed)
	dec := pd.dec
	dec.Reset(&pd.body, strictJSON)
	if err := json.UnmarshalDecode(dec, v, strictJSON); err != nil {
		return NewError(CodeInvalidRequest, describeDecodeError(err))
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return NewError(CodeInvalidRequest, "request body has data after the JSON object")
	}
	return nil
}

// pooledDecoder is a decoder reused across requests: a new jsontext.Decoder
// allocates its read buffer and, on its first string, a 4 KiB string cache
// (most of what decoding a small request cost). Reading from a
// bytes.Buffer, it parses the body in place without copying it.
type pooledDecoder struct {
	dec  *jsontext.Decoder
	body bytes.Buffer
}

var decoderPool = sync.Pool{New: func() any {
	pd := new(pooledDecoder)
	pd.dec = jsontext.NewDecoder(&pd.body)
	return pd
}}

// release unpins the body and returns the decoder to the pool.
func (pd *pooledDecoder) release() {
	pd.body = bytes.Buffer{}
	pd.dec.Reset(&pd.body)
	decoderPool.Put(pd)
}

// jsonWhitespace is JSON's insignificant whitespace (RFC 8259 §2); other
// Unicode spaces around the object are not whitespace to JSON parsers.
const jsonWhitespace = " \t\r\n"

// describeDecodeError turns decoder errors into messages that name the field
// and what was expected.
func describeDecodeError(err error) string {
	var semErr *json.SemanticError
	var synErr *jsontext.SyntacticError
	switch {
	case errors.As(err, &semErr):
		return describeSemanticError(semErr)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "malformed JSON: unexpected end of body"
	case !errors.As(err, &synErr):
		return "malformed JSON request body"
	case errors.Is(synErr.Err, jsontext.ErrDuplicateName):
		return fmt.Sprintf("duplicate field %s: each field may appear once", quotedPath(synErr.JSONPointer))
	case isEncodingError(synErr.Err):
		return fmt.Sprintf("invalid UTF-8 in %s: strings and field names must be valid UTF-8", placeOf(synErr.JSONPointer))
	}
	return fmt.Sprintf("malformed JSON at byte %d", synErr.ByteOffset)
}

// isEncodingError reports the syntax errors that are about the text's
// encoding: bytes that are not UTF-8, or an escaped lone surrogate
// (\ud800), which decodes to no Unicode character. The decoder does not
// export these as sentinels; decode_test.go pins the wording.
func isEncodingError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "invalid UTF-8") || strings.Contains(msg, "surrogate")
}

// placeOf is the field a pointer names, or the body itself.
func placeOf(p jsontext.Pointer) string {
	if p == "" {
		return "a field name"
	}
	return "field " + quotedPath(p)
}

func describeSemanticError(e *json.SemanticError) string {
	if errors.Is(e.Err, json.ErrUnknownName) {
		name := boundedName(e.JSONPointer.LastToken())
		if parent := e.JSONPointer.Parent(); parent != "" {
			return fmt.Sprintf("unknown field %s in %s (names are case-sensitive)", name, quotedPath(parent))
		}
		return fmt.Sprintf("unknown field %s (names are case-sensitive)", name)
	}
	if e.JSONPointer == "" {
		return "request body must be a JSON object"
	}
	field := quotedPath(e.JSONPointer)
	want := goKind(e)
	if e.JSONKind == '0' && want == "a number" {
		return fmt.Sprintf("field %s must be a whole number in range", field)
	}
	return fmt.Sprintf("field %s must be %s, not %s", field, want, jsonKind(e.JSONKind))
}

// goKind describes what the field's Go type accepts.
func goKind(e *json.SemanticError) string {
	if e.GoType == nil {
		return "of another type"
	}
	switch e.GoType.Kind().String() {
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

// jsonKind names the JSON kind the caller sent (never its value).
func jsonKind(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 'n':
		return "null"
	}
	return "another type"
}

// quotedPath renders a JSON pointer the way validation messages name
// fields: scope.paths, citations[0].path. Names in it may be the caller's
// (an unknown member), so each is bounded.
func quotedPath(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(bounded(tok))
	}
	if b.Len() == 0 {
		return strconv.Quote("body")
	}
	return strconv.Quote(b.String())
}

// boundedName quotes a member name the caller sent, cut to maxEchoedName
// bytes so a huge name is not sent back whole.
func boundedName(name string) string { return strconv.Quote(bounded(name)) }

const maxEchoedName = 64

func bounded(name string) string {
	if len(name) <= maxEchoedName {
		return name
	}
	cut := maxEchoedName
	for cut > 0 && !isRuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isIndex(tok string) bool {
	if tok == "" {
		return false
	}
	for _, r := range tok {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
