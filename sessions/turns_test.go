package sessions

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

func TestEstimateTokens(t *testing.T) {
	cases := map[string]int{
		"":                       0,
		"abc":                    1,
		"abcd":                   1,
		"abcde":                  2,
		"会话过期后追问":                2, // 7 runes, not 21 bytes
		strings.Repeat("x", 400): 100,
	}
	for text, want := range cases {
		if got := EstimateTokens(text); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestAddTurnTrimsByTurns(t *testing.T) {
	s, _ := newSession(t, alice, Limits{MaxTurns: 2})
	s.AddTurn(turn("q1", 10, citation(1), citation(2)))
	s.AddTurn(turn("q2", 10, citation(3)))
	s.AddTurn(turn("q3", 10, citation(4)))
	s.AddTurn(turn("q4", 10))

	if got, want := questions(s), []string{"q3", "q4"}; !slices.Equal(got, want) {
		t.Errorf("turns = %v, want %v", got, want)
	}
	if s.TrimmedTurns != 2 {
		t.Errorf("TrimmedTurns = %d, want 2", s.TrimmedTurns)
	}
	want := chunkIDs([]protocol.Citation{citation(1), citation(2), citation(3)})
	if got := chunkIDs(s.CitationSummary); !slices.Equal(got, want) {
		t.Errorf("summary = %v, want %v", got, want)
	}
}

func TestAddTurnTrimsByTokens(t *testing.T) {
	s, _ := newSession(t, alice, Limits{MaxTurns: 8, MaxContextTokens: 100})
	s.AddTurn(turn("q1", 40, citation(1)))
	s.AddTurn(turn("q2", 40, citation(2)))
	s.AddTurn(turn("q3", 40, citation(3))) // 120 > 100: q1 goes

	if got, want := questions(s), []string{"q2", "q3"}; !slices.Equal(got, want) {
		t.Errorf("turns = %v, want %v", got, want)
	}
	if got := chunkIDs(s.CitationSummary); !slices.Equal(got, chunkIDs([]protocol.Citation{citation(1)})) {
		t.Errorf("summary = %v, want the citation of q1", got)
	}

	s.AddTurn(turn("q4", 500)) // alone over budget: it stays, all else goes
	if got, want := questions(s), []string{"q4"}; !slices.Equal(got, want) {
		t.Errorf("turns = %v, want %v", got, want)
	}
	if s.TrimmedTurns != 3 || len(s.CitationSummary) != 3 {
		t.Errorf("TrimmedTurns = %d, summary %d citations; want 3 and 3", s.TrimmedTurns, len(s.CitationSummary))
	}
}

func TestAddTurnEstimatesTokensWhenUnset(t *testing.T) {
	s, _ := newSession(t, alice, Limits{})
	s.AddTurn(Turn{Question: strings.Repeat("q", 40), Answer: strings.Repeat("a", 80)})
	if got := s.Turns[0].Tokens; got != 30 {
		t.Errorf("Tokens = %d, want 30", got)
	}
}

func TestCitationSummaryDeduplicatesAndIsBounded(t *testing.T) {
	s, _ := newSession(t, alice, Limits{MaxTurns: 1})
	s.AddTurn(turn("q1", 1, citation(1), citation(2)))
	s.AddTurn(turn("q2", 1, citation(2), citation(3)))
	s.AddTurn(turn("q3", 1))
	// citation 2 was cited again by q2, so it is the most recent entry.
	want := chunkIDs([]protocol.Citation{citation(1), citation(2), citation(3)})
	if got := chunkIDs(s.CitationSummary); !slices.Equal(got, want) {
		t.Errorf("summary = %v, want %v", got, want)
	}

	for i := range 30 {
		s.AddTurn(turn(fmt.Sprint("bulk", i), 1, citation(100+2*i), citation(101+2*i)))
	}
	if len(s.CitationSummary) != MaxCitationSummary {
		t.Fatalf("summary has %d citations, want %d", len(s.CitationSummary), MaxCitationSummary)
	}
	// The newest trimmed turn is bulk28 (bulk29 is kept): its citations end
	// the summary, and the oldest ones were dropped.
	last := s.CitationSummary[MaxCitationSummary-1]
	if last.ChunkID != citation(157).ChunkID {
		t.Errorf("last summary citation = %s, want %s", last.ChunkID, citation(157).ChunkID)
	}
	if slices.Contains(chunkIDs(s.CitationSummary), citation(1).ChunkID) {
		t.Errorf("oldest citation still in a full summary")
	}
}

func TestCitationsWithoutChunkIDDeduplicateByPage(t *testing.T) {
	s, _ := newSession(t, alice, Limits{MaxTurns: 1})
	a := citation(1)
	a.ChunkID = ""
	b := a
	b.Anchor = "other"
	s.AddTurn(turn("q1", 1, a, a, b))
	s.AddTurn(turn("q2", 1))
	if len(s.CitationSummary) != 2 {
		t.Errorf("summary = %+v, want the page twice (two anchors)", s.CitationSummary)
	}
}
