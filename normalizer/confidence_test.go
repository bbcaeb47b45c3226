package normalizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestSplitAnswerClaims(t *testing.T) {
	cases := []struct {
		text    string
		claims  []string
		markers []int // per claim
		code    int
	}{
		{"A one [ID:0]. B two.", []string{"A one.", "B two."}, []int{1, 0}, 0},
		{"A one. [ID:0]", []string{"A one."}, []int{1}, 0},
		{"A one. [ID:0] B two.", []string{"A one.", "B two."}, []int{1, 0}, 0},
		{"[ID:0] A one.", []string{"A one."}, []int{1}, 0},
		{"v1.0 is 3.5x faster [ID:0].", []string{"v1.0 is 3.5x faster."}, []int{1}, 0},
		{"Is it? Yes [ID:0]! Sure.", []string{"Is it?", "Yes!", "Sure."}, []int{0, 1, 0}, 0},
		{"## Heading\n\nBody [ID:0].", []string{"Body."}, []int{1}, 0},
		{"Intro [ID:0]:\n```\ncode [0] line\n```\nAfter.", []string{"Intro:", "After."}, []int{1, 0}, 1},
		{"- item one [ID:0]\n- item two\n", []string{"- item one", "- item two"}, []int{1, 0}, 0},
		{"Line one\n[ID:1]\nLine two [ID:0]", []string{"Line one", "Line two"}, []int{1, 1}, 0},
		{"第一句【ID: 0】。第二句。", []string{"第一句。", "第二句。"}, []int{1, 0}, 0},
		{"1. First step [1].\n2. Second.", []string{"1. First step.", "2. Second."}, []int{1, 0}, 0},
		{"... --- !!!", nil, nil, 0},
		{"", nil, nil, 0},
	}
	for _, tc := range cases {
		pieces := splitAnswer(tc.text)
		var claims []string
		var markers []int
		code, at := 0, 0
		for _, p := range pieces {
			if p.start != at || p.end < p.start {
				t.Fatalf("%q: pieces do not cover the text: %+v", tc.text, pieces)
			}
			at = p.end
			switch p.kind {
			case claimPiece:
				claims = append(claims, strings.TrimSpace(plainText(tc.text, p)))
				markers = append(markers, len(p.markers))
			case codePiece:
				code++
				if len(p.markers) != 0 {
					t.Errorf("%q: a bare [0] in code is code, not a marker", tc.text)
				}
			}
		}
		if at != len(tc.text) || !slices.Equal(claims, tc.claims) || !slices.Equal(markers, tc.markers) || code != tc.code {
			t.Errorf("splitAnswer(%q): claims %q markers %v code %d, want %q %v %d", tc.text, claims, markers, code, tc.claims, tc.markers, tc.code)
		}
	}
}

func TestAnswerSummary(t *testing.T) {
	if got := answerSummary("- **Redis**  is\tthe default."); got != "**Redis** is the default." {
		t.Errorf("summary = %q", got)
	}
	long := answerSummary(strings.Repeat("word ", 100))
	if n := len([]rune(long)); n > summaryRunes || !strings.HasSuffix(long, "…") {
		t.Errorf("long summary has %d runes: %q", n, long)
	}
}

func TestAnswerConfidence(t *testing.T) {
	o := AnswerOptions{}.withDefaults()
	strict := AnswerOptions{HighScore: 0.9, MediumScore: 0.6}.withDefaults()
	grounded, partial := protocol.GroundingGrounded, protocol.GroundingPartial
	cases := []struct {
		status string
		top    float64
		o      AnswerOptions
		want   string
	}{
		{grounded, 0.5, o, protocol.ConfidenceHigh},
		{grounded, 0.49, o, protocol.ConfidenceMedium},
		{partial, 0.95, o, protocol.ConfidenceMedium},
		{partial, 0.3, o, protocol.ConfidenceMedium},
		{partial, 0.29, o, protocol.ConfidenceLow},
		{protocol.GroundingUngrounded, 0.99, o, protocol.ConfidenceLow},
		{grounded, 0.8, strict, protocol.ConfidenceMedium},
		{grounded, 0.5, strict, protocol.ConfidenceLow},
	}
	for _, tc := range cases {
		if got := answerConfidence(protocol.Grounding{Status: tc.status, TopScore: tc.top}, tc.o); got != tc.want {
			t.Errorf("%s %.2f (high %.1f): %s, want %s", tc.status, tc.top, tc.o.HighScore, got, tc.want)
		}
	}
}

// TestJoinFieldsIsFieldsJoined holds joinFields to strings.Join of
// strings.Fields on texts of blanks, Unicode spaces, invalid bytes and
// words.
func TestJoinFieldsIsFieldsJoined(t *testing.T) {
	parts := []string{" ", "  ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "\xff", "a", "word", "é", "記"}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(8); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := joinFields(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
	}
}
