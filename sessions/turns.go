package sessions

import (
	"slices"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// MaxCitationSummary bounds CitationSummary; the oldest citations leave
// first, since follow-ups mostly refer to recent answers.
const MaxCitationSummary = 50

// EstimateTokens is a cheap token count: about four runes a token,
// rounded up. It only has to be consistent, not exact: it decides when old
// turns are trimmed.
func EstimateTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// AddTurn appends t and then trims the oldest turns while the session holds
// more than Limits.MaxTurns turns or more than Limits.MaxContextTokens
// tokens. The newest turn is never trimmed, even when it alone is over the
// token budget. Citations of trimmed turns move into CitationSummary so
// the session still knows which pages it has relied on.
func (s *Session) AddTurn(t Turn) {
	if t.Tokens <= 0 {
		t.Tokens = EstimateTokens(t.Question) + EstimateTokens(t.Answer)
	}
	t.Citations = slices.Clone(t.Citations)
	s.Turns = append(s.Turns, t)
	limits := s.Limits.withDefaults()
	trim := 0
	tokens := s.tokens()
	for trim < len(s.Turns)-1 && (len(s.Turns)-trim > limits.MaxTurns || tokens > limits.MaxContextTokens) {
		tokens -= s.Turns[trim].Tokens
		s.summarize(s.Turns[trim].Citations)
		trim++
	}
	if trim > 0 {
		// Copy rather than reslice so the trimmed turns can be collected.
		s.Turns = slices.Clone(s.Turns[trim:])
		s.TrimmedTurns += trim
	}
}

// tokens is the context budget the kept turns use.
func (s *Session) tokens() int {
	total := 0
	for i := range s.Turns {
		total += s.Turns[i].Tokens
	}
	return total
}

// summarize adds citations to CitationSummary. A citation already there
// moves to the end (it is recent again); the summary then drops its
// oldest entries down to MaxCitationSummary.
func (s *Session) summarize(citations []protocol.Citation) {
	for _, c := range citations {
		key := citationKey(c)
		s.CitationSummary = slices.DeleteFunc(s.CitationSummary, func(old protocol.Citation) bool {
			return citationKey(old) == key
		})
		s.CitationSummary = append(s.CitationSummary, c)
	}
	if over := len(s.CitationSummary) - MaxCitationSummary; over > 0 {
		s.CitationSummary = slices.Clone(s.CitationSummary[over:])
	}
}

// citationKey identifies the evidence a citation points at: its chunk, or
// its page and anchor when it has no chunk id.
func citationKey(c protocol.Citation) string {
	if c.ChunkID != "" {
		return "chunk:" + c.ChunkID
	}
	return "page:" + c.Version + ":" + c.Path + "#" + c.Anchor
}
