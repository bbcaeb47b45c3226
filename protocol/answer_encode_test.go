package protocol

import (
	"bytes"
	"math"
	"testing"
)

// answerCases are answers with every field set and unset: nil and empty
// lists, a no-answer, a citation summary, floats of each notation, and the
// strings of jsonStringCases in every string field.
func answerCases() []AnswerResult {
	floats := []float64{0, 1, 0.987654321, 1e-7, 1.5e21, 123456789, -0.5, 5e-324}
	str := func(i int) string { return jsonStringCases[i%len(jsonStringCases)] }
	var out []AnswerResult
	out = append(out, AnswerResult{}, AnswerResult{Citations: []Citation{}, RelatedPages: []RelatedPage{}, Actions: []Action{},
		CitationSummary: []Citation{}, Grounding: Grounding{Citations: []CitationGrounding{}}})
	for i := range len(jsonStringCases) {
		c := Citation{Path: "publish/" + str(i), URL: "/u/" + str(i+1) + "?a=1&b=<2>", Title: str(i + 2), Anchor: str(i + 3),
			ChunkID: str(i + 4), SourceProject: str(i + 5), Version: str(i + 6)}
		r := AnswerResult{
			Answer: str(i) + " [1]", Summary: str(i + 7), Citations: []Citation{c, c}, Confidence: str(i + 8),
			Grounding: Grounding{Status: str(i + 9), CitedSentences: i, Sentences: -i, DroppedSentences: 3, Supported: floats[i%8],
				Sources: 2, TopScore: floats[(i+3)%8], Citations: []CitationGrounding{{Ref: 1, ChunkID: str(i), Sentences: 2, Support: floats[(i+5)%8], GateCited: 1}}},
			RelatedPages: []RelatedPage{{Path: str(i), URL: str(i + 1), Title: str(i + 2), SourceProject: str(i + 3), Version: str(i + 4), Score: floats[(i+1)%8]}},
			Actions:      []Action{{Type: str(i), Enabled: i%2 == 0, DedupeKey: str(i + 1), Endpoint: []string{"", str(i + 2)}[i%2]}},
			Audit:        Audit{RequestID: str(i), Caller: str(i + 1), Scope: str(i + 2), SessionID: []string{"", str(i + 3)}[i%2]},
		}
		if i%3 == 0 {
			r.NoAnswerReason = &NoAnswerReason{Code: Code(str(i)), Reason: str(i + 1), Message: str(i + 2)}
			r.CitationSummary = []Citation{c}
		}
		out = append(out, r)
	}
	return out
}

func TestAnswerResultAppendJSONIsEncodingJSON(t *testing.T) {
	for i, r := range answerCases() {
		for _, html := range []bool{false, true} {
			got, err := r.AppendJSON(nil, html)
			if err != nil {
				t.Fatalf("answer %d: %v", i, err)
			}
			if want := stdlibJSON(t, r, html); !bytes.Equal(got, want) {
				t.Errorf("answer %d, html=%v:\n got %s\nwant %s", i, html, got, want)
			}
		}
	}
}

// FuzzAnswerResultAppendJSON: any text and score, the bytes encoding/json
// writes.
func FuzzAnswerResultAppendJSON(f *testing.F) {
	f.Add("answer <b>&\u2028", "publish/a\xff", 0.5, true)
	f.Add("", "", 1e-9, false)
	f.Fuzz(func(t *testing.T, text, path string, score float64, noAnswer bool) {
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return
		}
		c := Citation{Path: path, URL: text, Title: text, Anchor: path, ChunkID: text, SourceProject: path, Version: text}
		r := AnswerResult{Answer: text, Summary: path, Citations: []Citation{c}, Confidence: text,
			Grounding:    Grounding{Status: path, Supported: score, TopScore: -score, Citations: []CitationGrounding{{ChunkID: text, Support: score}}},
			RelatedPages: []RelatedPage{{Path: path, Title: text, Score: score}}, Actions: []Action{{Type: text, DedupeKey: path, Endpoint: text}},
			Audit: Audit{RequestID: text, Caller: path, Scope: text, SessionID: path}}
		if noAnswer {
			r.NoAnswerReason = &NoAnswerReason{Code: Code(text), Reason: path, Message: text}
			r.CitationSummary = r.Citations
		}
		for _, html := range []bool{false, true} {
			got, err := r.AppendJSON(nil, html)
			if err != nil {
				t.Fatal(err)
			}
			if want := stdlibJSON(t, r, html); !bytes.Equal(got, want) {
				t.Fatalf("html=%v:\n got %s\nwant %s", html, got, want)
			}
		}
	})
}

func TestAnswerResultAppendJSONRefusesNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, r := range []AnswerResult{{Grounding: Grounding{Supported: f}}, {Grounding: Grounding{TopScore: f}},
			{Grounding: Grounding{Citations: []CitationGrounding{{Support: f}}}}, {RelatedPages: []RelatedPage{{Score: f}}}} {
			if _, err := r.AppendJSON(nil, false); err != ErrUnsupportedFloat {
				t.Errorf("%+v: err = %v, want ErrUnsupportedFloat", r, err)
			}
		}
	}
}

func BenchmarkAnswerResultJSON(b *testing.B) {
	r := answerCases()[5]
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 8<<10)
		for b.Loop() {
			buf, _ = r.AppendJSON(buf[:0], false)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			stdlibJSON(b, r, false)
		}
	})
}
