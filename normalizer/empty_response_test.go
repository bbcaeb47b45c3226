package normalizer

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/wikigate/wikigate/ragflow"
)

// isEmptyResponseFull is isEmptyResponse without its shortcut: the text
// stripped, unescaped and collapsed every time. The shortcut must never
// change what it says.
func isEmptyResponseFull(text string, empties []string) bool {
	t := emptyResponseForm(ragflow.StripMarkers(text))
	if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return true
	}
	for _, e := range empties {
		if f := emptyResponseForm(e); f != "" && strings.EqualFold(t, f) {
			return true
		}
	}
	return false
}

var emptyResponseParts = []string{
	"No", " relevant", " content", "!", ".", " ", "\n", "[ID:0]", "[ID:[0]0]", "【ID: 1】", "(ID:2)", "（ID：3）",
	"##4$$", "[5]", "&amp;", "&#65;", "&lt", "&ampx", "Sorry", "ÉCOLE", "配置", "[", "]", "(", ")", "a", "1", "K", "\u212a",
	RAGFlowEmptyResponse, RAGFlowNotInDataset, "Nothing here & there",
}

func TestIsEmptyResponseShortcutAgreesWithFullCheck(t *testing.T) {
	empties := AnswerOptions{EmptyResponses: []string{"Nothing here &amp; there", "kkk"}}.withDefaults().EmptyResponses
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(30); k > 0; k-- {
			b.WriteString(emptyResponseParts[rng.IntN(len(emptyResponseParts))])
		}
		text := b.String()
		if got, want := isEmptyResponse(text, empties), isEmptyResponseFull(text, empties); got != want {
			t.Fatalf("isEmptyResponse(%q) = %v, the full check says %v", text, got, want)
		}
	}
	// A whole answer takes the shortcut; RAGFlow's empty response does not.
	if isEmptyResponse("Set memory.window in the agent's config. [ID:0]", empties) || !isEmptyResponse(RAGFlowEmptyResponse+" [ID:1]", empties) {
		t.Fatal("an answer read as empty, or the empty response as an answer")
	}
}

func FuzzIsEmptyResponse(f *testing.F) {
	for _, p := range emptyResponseParts {
		f.Add(p, "Nothing here")
	}
	f.Add("Sorry! No relevant content was found in the knowledge base! [ID:0]", "")
	f.Add("&#75;&#75;&#75;", "kkk")
	f.Fuzz(func(t *testing.T, text, extra string) {
		empties := AnswerOptions{EmptyResponses: []string{extra}}.withDefaults().EmptyResponses
		if got, want := isEmptyResponse(text, empties), isEmptyResponseFull(text, empties); got != want {
			t.Fatalf("isEmptyResponse(%q, %q) = %v, the full check says %v", text, extra, got, want)
		}
	})
}
