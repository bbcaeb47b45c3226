package gateway

import (
	"bytes"
	stdjson "encoding/json"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// FuzzDecodeRequest feeds arbitrary bodies to every route's decoder and
// validator: they must never panic, every refusal must be a protocol
// invalid_request, and an accepted request must carry only normalized,
// re-normalizable paths.
//
// It is also a differential test of the strict decoder (protocol.Decode,
// encoding/json/v2 semantics) against the encoding/json reading it
// replaced (legacyDecode): whatever the strict decoder accepts, the old one
// accepted with exactly the same result; where the old one accepted and
// the strict one refuses, the body must be one the strict-JSON rule exists
// to refuse (strictRefusalReason). Any other disagreement is a bug.
func FuzzDecodeRequest(f *testing.F) {
	seeds := []string{
		`{"question":"agent memory","limit":5}`,
		`{"question":"q","scope":{"projects":["kunora-kgent"],"paths":["publish/system/components/kunora-kgent"],"version":"main","includeWorkingDocs":false}}`,
		`{"path":"publish/system/components/kunora-kgent/index.md"}`,
		`{"paths":["a.md","a.md","b/c.md"]}`,
		`{"question":"q","page":{"url":"/v1.0/system/components/kunora-kgent/"}}`,
		`{"question":"q","caller":{"type":"agent","id":"x","purpose":"p"},"requireCitations":false,"maxTokens":100}`,
		`{"question":"q","scope":{"paths":["publish/../x"]}}`,
		`{"eventType":"qa_no_answer","question":"q","citations":[{"path":"a.md"}],"idempotencyKey":"k"}`,
		`{"question":"a","question":"b"}`, `{"Question":"a"}`, `{"question":"a","SCOPE":{}}`,
		"{\"question\":\"a\",\"\u017fcope\":{}}", "{\"question\":\"a\",\"scope\":{\"includeWor\u212aingDocs\":true}}",
		"{\"question\":\"a\xffb\"}", `{"question":"\ud800"}`, "\u00a0{\"question\":\"a\"}",
		`{"question":"\u0000"}`, `[]`, `{"question":1}`, `{`, ``,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, d := range fuzzDecoders {
			req, err := d.strict(body)
			checkAgainstLegacy(t, d, body, req, err)
			if err == nil {
				err = req.validate()
			}
			if err != nil {
				if pe := protocol.AsError(err); pe.Code != protocol.CodeInvalidRequest {
					t.Fatalf("refusal with code %s (%v)", pe.Code, err)
				}
				continue
			}
			checkNormalized(t, req)
		}
	})
}

// fuzzDecoder is one route's body type, read strictly and the old way.
type fuzzDecoder struct {
	strict func([]byte) (request, error)
	legacy func([]byte) (request, error)
	names  map[string]bool // every JSON member name the type knows
}

func decoderFor[T any, P interface {
	*T
	request
}]() fuzzDecoder {
	return fuzzDecoder{strict: decodeAs[T, P], legacy: legacyDecodeAs[T, P], names: jsonNames(reflect.TypeFor[T](), map[string]bool{})}
}

var fuzzDecoders = []fuzzDecoder{
	decoderFor[searchRequest](), decoderFor[getPageRequest](), decoderFor[askRequest](),
	decoderFor[getContextRequest](), decoderFor[sessionCreateRequest](), decoderFor[feedbackRequest](),
}

// checkAgainstLegacy holds the strict decoder to the old one where they
// must agree, and to a reason where they may not.
func checkAgainstLegacy(t *testing.T, d fuzzDecoder, body []byte, strict request, strictErr error) {
	t.Helper()
	legacy, legacyErr := d.legacy(body)
	switch {
	case strictErr == nil && legacyErr != nil:
		t.Fatalf("strict decoder accepted %q, which the old decoder refused (%v)", body, legacyErr)
	case strictErr == nil && !reflect.DeepEqual(strict, legacy):
		t.Fatalf("decoders read %q differently:\nstrict %+v\nold    %+v", body, strict, legacy)
	case strictErr != nil && legacyErr == nil:
		if strictRefusalReason(body, d.names) == "" {
			t.Fatalf("strict decoder refused %q for no strict-JSON reason: %v", body, strictErr)
		}
	}
}

// strictRefusalReason says why the strict reading may refuse a body the old
// reading accepted: invalid UTF-8 (the old one replaced it with U+FFFD), an
// escaped surrogate (a lone one decodes to no character; the check is
// deliberately coarse), a repeated member name (the old one kept the last),
// a name that is not exactly a known one (the old one folded case and
// Unicode: "Question", "ſcope"), or non-JSON spaces around the object. ""
// means none of these applies.
func strictRefusalReason(body []byte, known map[string]bool) string {
	switch {
	case !utf8.Valid(body):
		return "invalid UTF-8"
	case surrogateEscape.Match(body):
		return "surrogate escape"
	case !bytes.Equal(bytes.TrimSpace(body), bytes.Trim(body, " \t\r\n")):
		return "non-JSON whitespace"
	}
	return nameReason(body, known)
}

var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`)

// nameReason walks the body's tokens leniently (duplicates allowed) and
// reports a repeated or inexact member name.
func nameReason(body []byte, known map[string]bool) string {
	dec := jsontext.NewDecoder(bytes.NewReader(bytes.TrimSpace(body)), jsontext.AllowDuplicateNames(true))
	var objects []map[string]bool // the names seen in each open object
	for {
		kind, length := dec.StackIndex(dec.StackDepth())
		atName := kind == '{' && length%2 == 0
		tok, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		switch {
		case atName && tok.Kind() == '"':
			seen := objects[len(objects)-1]
			if name := tok.String(); seen[name] {
				return "duplicate name"
			} else if !known[name] {
				return "inexact name"
			}
			seen[tok.String()] = true
		case tok.Kind() == '{':
			objects = append(objects, map[string]bool{})
		case tok.Kind() == '}':
			objects = objects[:len(objects)-1]
		}
	}
}

// jsonNames collects the member names of t and of the structs it holds.
func jsonNames(t reflect.Type, names map[string]bool) map[string]bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return names
	}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if !f.Anonymous {
			names[name] = true
		}
		jsonNames(f.Type, names)
	}
	return names
}

// legacyDecodeAs is protocol.Decode as it was before the strict-JSON rule:
// encoding/json with unknown fields refused, bytes.TrimSpace, trailing data
// refused. It exists only as the reference of the differential test.
func legacyDecodeAs[T any, P interface {
	*T
	request
}](body []byte) (request, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, invalid("not an object")
	}
	p := P(new(T))
	dec := stdjson.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, invalid(err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalid("data after the object")
	}
	return p, nil
}

func checkNormalized(t *testing.T, req request) {
	t.Helper()
	paths := append([]string{}, req.pages()...)
	if s := req.standard().Scope; s != nil {
		paths = append(paths, s.Paths...)
	}
	if p := req.standard().Page; p != nil && p.URL == "" { // a page.url gets its path from the site mapping later (resolvePage)
		paths = append(paths, p.Path)
	}
	for _, p := range paths {
		again, err := scope.NormalizePath("p", p)
		if err != nil || again != p {
			t.Fatalf("accepted path %q is not normalized (%q, %v)", p, again, err)
		}
	}
	switch req.(type) {
	case *getPageRequest, *sessionCreateRequest: // the question is optional
	default:
		if req.standard().Question == "" {
			t.Fatal("a tool that needs a question accepted an empty one")
		}
	}
}
