package normalizer

import (
	"html"
	"slices"
	"strings"
	"unicode"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// RAGFlow's "nothing found" texts (CONTRACT §4.8): the default
// empty_response of chat assistants, and what its default prompt tells the
// LLM to say when the knowledge is empty.
const (
	RAGFlowEmptyResponse = "Sorry! No relevant content was found in the knowledge base!"
	RAGFlowNotInDataset  = "The answer you are looking for is not found in the dataset!"
)

// Default confidence thresholds on the best cited chunk's score.
const (
	DefaultHighScore   = 0.5
	DefaultMediumScore = 0.3
)

// AnswerOptions tunes Answer.
type AnswerOptions struct {
	// RequireCitations withholds any answer without a valid citation
	// (protocol §8: never an uncited answer when citations are required).
	RequireCitations bool
	// EmptyResponses are extra texts meaning "nothing found", e.g. a
	// configured empty_response; RAGFlow's two defaults always count.
	EmptyResponses []string
	// HighScore and MediumScore are the confidence thresholds on the best
	// cited chunk's score; DefaultHighScore / DefaultMediumScore when <= 0.
	HighScore, MediumScore float64
	// DedupeKey is the precomputed §8.1 key (dedupe.Key) of the no-answer
	// actions.
	DedupeKey string
	// WriteTools are the write tools the decision allows; an action is
	// enabled iff its tool is here.
	WriteTools []string
}

// AnswerStats is what the audit record needs of an answer.
type AnswerStats struct {
	Dropped   int // chunks outside the scope
	Citations int
	NoAnswer  bool
}

// Answer builds the AnswerResult (without Audit) of a generated text and
// the chunks that were numbered in its prompt (marker [ID:n] ↔ chunks[n],
// see ragflow.BuildPrompt). Chunks outside eff are never cited, whatever the
// text says. It answers "no answer" (protocol §8) when no chunk is in
// scope, when the text is an empty-response text, or when nothing is
// validly cited and o.RequireCitations is set; without RequireCitations an
// uncited text is returned with low confidence, grounding ungrounded.
// Slices in the result are never nil.
func Answer(text string, chunks []ragflow.Chunk, eff protocol.Scope, o AnswerOptions) (protocol.AnswerResult, AnswerStats) {
	o = o.withDefaults()
	inScope, stats := make([]bool, len(chunks)), AnswerStats{}
	for i := range chunks {
		inScope[i] = ragChunkInScope(&chunks[i], eff)
		if !inScope[i] {
			stats.Dropped++
		}
	}
	if !slices.Contains(inScope, true) {
		return noAnswer(protocol.NoAnswerNoEvidence, nil, inScope, o), markNoAnswer(stats)
	}
	if isEmptyResponse(text, o.EmptyResponses) {
		return noAnswer(protocol.NoAnswerEmptyResponse, chunks, inScope, o), markNoAnswer(stats)
	}
	ca := citeMarkers(text, chunks, inScope)
	if len(ca.citations) == 0 && o.RequireCitations {
		return noAnswer(protocol.NoAnswerUncited, chunks, inScope, o), markNoAnswer(stats)
	}
	sentences := countSentences(ca.text)
	g := answerGrounding(sentences, ca)
	stats.Citations = len(ca.citations)
	return protocol.AnswerResult{
		Answer:       ca.text,
		Summary:      answerSummary(sentences.first),
		Citations:    ca.citations,
		Confidence:   answerConfidence(g, o),
		Grounding:    g,
		RelatedPages: ragRelatedPages(chunks, inScope, ca.cited),
		Actions:      []protocol.Action{},
	}, stats
}

func (o AnswerOptions) withDefaults() AnswerOptions {
	if o.HighScore <= 0 {
		o.HighScore = DefaultHighScore
	}
	if o.MediumScore <= 0 {
		o.MediumScore = DefaultMediumScore
	}
	o.EmptyResponses = append([]string{RAGFlowEmptyResponse, RAGFlowNotInDataset}, o.EmptyResponses...)
	return o
}

func markNoAnswer(s AnswerStats) AnswerStats {
	s.NoAnswer = true
	return s
}

// isEmptyResponse: the text, markers stripped, says nothing (no letter or
// digit) or is one of the empty-response texts. Both sides are trimmed,
// HTML-unescaped (G2 escapes empty_response), whitespace-collapsed and
// compared case-insensitively, final punctuation aside.
func isEmptyResponse(text string, empties []string) bool {
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

func emptyResponseForm(s string) string {
	s = strings.Join(strings.Fields(html.UnescapeString(s)), " ")
	return strings.TrimRight(s, ".!。！ ")
}

// noAnswerMessages explain each no-answer reason to the caller.
var noAnswerMessages = map[string]string{
	protocol.NoAnswerNoEvidence:    "No documentation in the requested scope matches this question.",
	protocol.NoAnswerEmptyResponse: "The knowledge base found nothing that answers this question.",
	protocol.NoAnswerUncited:       "No answer backed by a citation could be given, so none is shown.",
}

// noAnswer is the honest "no answer" of protocol §8: empty answer, low
// confidence, a reason, no citations, and the feedback actions carrying the
// dedupe key, enabled when the caller may use those tools. Pages that were
// retrieved in scope are still listed as related pages.
func noAnswer(reason string, chunks []ragflow.Chunk, inScope []bool, o AnswerOptions) protocol.AnswerResult {
	related := []protocol.RelatedPage{}
	if chunks != nil {
		related = ragRelatedPages(chunks, inScope, nil)
	}
	return protocol.AnswerResult{
		Citations:  []protocol.Citation{},
		Confidence: protocol.ConfidenceLow,
		Grounding:  protocol.Grounding{Status: protocol.GroundingUngrounded},
		NoAnswerReason: &protocol.NoAnswerReason{
			Code:    protocol.CodeNoAnswer,
			Reason:  reason,
			Message: noAnswerMessages[reason],
		},
		RelatedPages: related,
		Actions: []protocol.Action{
			{Type: protocol.ActionCreateFeedback, Enabled: slices.Contains(o.WriteTools, protocol.ActionCreateFeedback), DedupeKey: o.DedupeKey},
			{Type: protocol.ActionCreateImprovementTask, Enabled: slices.Contains(o.WriteTools, protocol.ActionCreateImprovementTask), DedupeKey: o.DedupeKey},
		},
	}
}
