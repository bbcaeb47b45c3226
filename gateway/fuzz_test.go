package gateway

import (
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// FuzzDecodeRequest feeds arbitrary bodies to every route's decoder and
// validator: they must never panic, every refusal must be a protocol
// invalid_request, and an accepted request must carry only normalized,
// re-normalizable paths.
func FuzzDecodeRequest(f *testing.F) {
	seeds := []string{
		`{"question":"agent memory","limit":5}`,
		`{"question":"q","scope":{"projects":["kunora-kgent"],"paths":["publish/system/components/kunora-kgent"],"version":"main","includeWorkingDocs":false}}`,
		`{"path":"publish/system/components/kunora-kgent/index.md"}`,
		`{"paths":["a.md","a.md","b/c.md"]}`,
		`{"question":"q","page":{"url":"/v1.0/system/components/kunora-kgent/"}}`,
		`{"question":"q","caller":{"type":"agent","id":"x","purpose":"p"},"requireCitations":false,"maxTokens":100}`,
		`{"question":"q","scope":{"paths":["publish/../x"]}}`,
		`{"question":"\u0000"}`, `[]`, `{"question":1}`, `{`, ``,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	decoders := []func([]byte) (request, error){decodeAs[searchRequest], decodeAs[getPageRequest], decodeAs[askRequest], decodeAs[getContextRequest], decodeAs[sessionCreateRequest], decodeAs[feedbackRequest]}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, decode := range decoders {
			req, err := decode(body)
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

func checkNormalized(t *testing.T, req request) {
	t.Helper()
	paths := append([]string{}, req.pages()...)
	if s := req.standard().Scope; s != nil {
		paths = append(paths, s.Paths...)
	}
	if p := req.standard().Page; p != nil {
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
