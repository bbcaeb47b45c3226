package normalizer

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/ragflow"
)

// TestAnswerNeverShowsASplicedMarker: removing a marker that names no
// supporting chunk must not splice the text around it into a marker the
// gate never verified (found by FuzzAnswer: "0[ID:[0]0]" showed "[ID:0]").
func TestAnswerNeverShowsASplicedMarker(t *testing.T) {
	a, b := inChunk("a", 0.4), inChunk("b", 0.9)
	a.Content, b.Content = "Alpha uses Redis for memory: memory := a[[2]0]", "Beta keeps a window of 20 turns."
	chunks := []ragflow.Chunk{a, b, outChunk("x", 0.99)}
	cases := map[string]string{
		"Alpha uses Redis [ID:0] [ID:[2]0].":                    "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0] [[2]1].":                       "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0] ##[2]1$$.":                     "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0]. [ID:[ID:[2]2]2] x":            "Alpha uses Redis [1].",
		"Alpha uses Redis\uE000 [ID:0]\uE001.":                  "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0]:\n```\nmemory := a[[2]0]\n```": "Alpha uses Redis [1]:\n```\nmemory := a[[2]0]\n```",
	}
	for text, want := range cases {
		res, _ := Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true, MinSupported: 0.01})
		if res.Answer != want {
			t.Errorf("Answer(%q) = %q, want %q", text, res.Answer, want)
		}
	}
}

// TestStripMarkersLeavesNoSplice: the history sent back to the model and
// the summary hold no marker, however the markers were nested.
func TestStripMarkersLeavesNoSplice(t *testing.T) {
	for _, s := range []string{"0[ID:[0]0]", "[[1]2]", "##[0]1$$", "[ID:[ID:[0]0]0]"} {
		if got := ragflow.StripMarkers(s); len(ragflow.FindAllMarkers(got)) != 0 {
			t.Errorf("StripMarkers(%q) = %q still holds a marker", s, got)
		}
	}
}

// TestReplaceSentinelsIsTheReplacer holds replaceSentinels to the
// strings.Replacer it replaced, on texts built from sentinels, their
// prefixes and neighbours (the three bytes of refOpen, refClose and
// U+E002 share their first two).
func TestReplaceSentinelsIsTheReplacer(t *testing.T) {
	drop := strings.NewReplacer(refOpen, "", refClose, "")
	show := strings.NewReplacer(refOpen, "[", refClose, "]")
	parts := []string{refOpen, refClose, "\ue002", "\xee", "\xee\x80", "\x80", "a", "[ID:0]", " ", "é", ""}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := dropSentinels(s), drop.Replace(s); got != want {
			t.Fatalf("dropSentinels(%q) = %q, the replacer %q", s, got, want)
		}
		if got, want := replaceSentinels(s, "[", "]"), show.Replace(s); got != want {
			t.Fatalf("replaceSentinels(%q) = %q, the replacer %q", s, got, want)
		}
	}
}
