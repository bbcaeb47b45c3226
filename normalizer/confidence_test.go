package normalizer

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestCountSentences(t *testing.T) {
	cases := []struct {
		text         string
		total, cited int
		first        string
	}{
		{"A one [ID:0]. B two.", 2, 1, "A one."},
		{"A one. [ID:0]", 1, 1, "A one."},
		{"A one. [ID:0] B two.", 2, 1, "A one."},
		{"[ID:0] A one.", 1, 1, "A one."},
		{"v1.0 is 3.5x faster [ID:0].", 1, 1, "v1.0 is 3.5x faster."},
		{"Is it? Yes [ID:0]! Sure.", 3, 1, "Is it?"},
		{"## Heading\n\nBody [ID:0].", 1, 1, "Body."},
		{"Intro [ID:0]:\n```\ncode line\n```\nAfter.", 2, 1, "Intro:"},
		{"- item one [ID:0]\n- item two\n", 2, 1, "- item one"},
		{"Line one\n[ID:1]\nLine two [ID:0]", 2, 2, "Line one"},
		{"第一句【ID: 0】。第二句。", 2, 1, "第一句。"},
		{"... --- !!!", 0, 0, ""},
		{"", 0, 0, ""},
	}
	for _, tc := range cases {
		got := countSentences(tc.text)
		if got.total != tc.total || got.cited != tc.cited || got.first != tc.first {
			t.Errorf("countSentences(%q) = %d/%d %q, want %d/%d %q", tc.text, got.cited, got.total, got.first, tc.cited, tc.total, tc.first)
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
