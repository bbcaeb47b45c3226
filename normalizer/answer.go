package normalizer

import (
	"html"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// RAGFlow's "nothing found" texts (docs/backends.md, "RAGFlow wire details",
// Nothing found): the default empty_response of chat assistants, and what its
// default prompt tells the LLM to say when the knowledge is empty.
const (
	RAGFlowEmptyResponse = "Sorry! No relevant content was found in the knowledge base!"
	RAGFlowNotInDataset  = "The answer you are looking for is not found in the dataset!"
)

// Default confidence thresholds on the best cited chunk's score.
const (
	DefaultHighScore   = 0.5
	DefaultMediumScore = 0.3
)

// Default grounding thresholds (docs/protocol.md "Citations and grounding").
const (
	// DefaultSupportThreshold: a sentence is supported by a chunk it cites
	// when at least half its weighted tokens are in that chunk.
	DefaultSupportThreshold = 0.5
	// DefaultMinSupported: an answer of which less than half (by
	// characters) is supported is withheld as a no-answer.
	DefaultMinSupported = 0.5
)

// AnswerOptions tunes Answer.
type AnswerOptions struct {
	// RequireCitations: every sentence shown must carry a citation the model
	// wrote and the gate verified. Without it the model need not write
	// markers: the gate cites a sentence with the in-scope chunk that supports
	// it best. Either way no uncited sentence is ever shown and an answer
	// always has citations (docs/protocol.md, "AnswerResult").
	RequireCitations bool
	// EmptyResponses are extra texts meaning "nothing found", e.g. a
	// configured empty_response; RAGFlow's two defaults always count.
	EmptyResponses []string
	// HighScore and MediumScore are the confidence thresholds on the best
	// cited chunk's score; DefaultHighScore / DefaultMediumScore when <= 0.
	HighScore, MediumScore float64
	// SupportThreshold is the support score (0..1) a sentence needs against
	// a chunk to be cited by it; DefaultSupportThreshold when <= 0.
	SupportThreshold float64
	// MinSupported is the share of the answer (0..1, by characters) that
	// must be supported, or there is no answer; DefaultMinSupported when
	// <= 0.
	MinSupported float64
	// DedupeKey is the precomputed dedupe key (dedupe.Key; docs/protocol.md,
	// "The dedupe key") of the no-answer actions.
	DedupeKey string
	// NoAnswerKey, when DedupeKey is empty, computes that key: only a
	// no-answer shows it, so an answered call does not pay for it.
	NoAnswerKey func() string
	// AnswerKey computes the dedupe key of an answered result's
	// create_feedback action over the cited paths (event qa_answer); nil
	// offers no action with an answer.
	AnswerKey func(citationPaths []string) string
	// WriteTools are the write tools the decision allows; an action is
	// enabled iff its tool is here.
	WriteTools []string
	// FeedbackEndpoint, when set, is the route the create_feedback action
	// names (people's answers: /answer/feedback); empty for agent tools.
	FeedbackEndpoint string
}

// AnswerStats is what the audit record needs of an answer, and the chunk
// texts its grounding read, which CheckCoverage reads again.
type AnswerStats struct {
	Dropped   int // chunks outside the scope
	Citations int
	NoAnswer  bool

	read *chunkTexts // by the chunks' index; nil when grounding read none
}

// Answer builds the AnswerResult (without Audit) of a generated text and the
// chunks that were numbered in its prompt (marker [ID:n] ↔ chunks[n], see
// ragflow.BuildPrompt). Chunks outside eff are never cited, whatever the text
// says. Each sentence is checked against the chunks it cites (see verifier);
// unsupported sentences are dropped and the markers of the rest become [1],
// [2]... in the order of the returned citations. It answers "no answer"
// (docs/protocol.md, "AnswerResult", No answer) when no chunk is in scope,
// when the text is an empty-response text, when no sentence is supported, or
// when the supported share is under MinSupported. Slices in the result are
// never nil.
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
	gr := ground(text, chunks, inScope, o)
	if reason := withheld(gr.g, o); reason != "" {
		res := noAnswer(reason, chunks, inScope, o)
		res.Grounding = gr.g
		return res, markNoAnswer(stats)
	}
	stats.Citations, stats.read = len(gr.nb.citations), &gr.texts
	return protocol.AnswerResult{
		Answer:       gr.answer,
		Summary:      answerSummary(gr.first),
		Citations:    gr.nb.citations,
		Confidence:   answerConfidence(gr.g, o),
		Grounding:    gr.g,
		RelatedPages: ragRelatedPages(chunks, inScope, gr.nb.ref),
		Actions:      answeredActions(gr.nb.citations, o),
	}, stats
}

// grounded is a verified answer: the text shown, its first sentence, its
// citations and grounding.
type grounded struct {
	answer, first string
	nb            numbering
	g             protocol.Grounding
	texts         chunkTexts // the chunk texts verification read
}

// ground verifies a generated text against the chunks of its prompt
// (issue 8 items 2, 13, 14): split into claims, each checked against what
// it cites, unsupported ones dropped, the rest renumbered to the citations.
func ground(text string, chunks []ragflow.Chunk, inScope []bool, o AnswerOptions) grounded {
	text = dropSentinels(text)
	pieces := splitAnswer(text)
	v := newVerifier(text, chunks, inScope, nil, o)
	verdicts := v.verify(pieces)
	gr := grounded{g: measureGrounding(pieces, verdicts), texts: v.texts}
	if withheld(gr.g, o) != "" {
		return gr
	}
	gr.nb = numberCitations(chunks, verdicts)
	gr.g.Citations, gr.g.TopScore, gr.g.Sources = gr.nb.grounding, gr.nb.topScore, distinctPaths(gr.nb.citations)
	gr.answer = renderAnswer(text, pieces, verdicts, chunks, gr.nb.ref)
	gr.first = firstKept(text, pieces, verdicts)
	return gr
}

// withheld is the no-answer reason of a verified answer, or "".
func withheld(g protocol.Grounding, o AnswerOptions) string {
	switch {
	case g.CitedSentences == 0:
		return protocol.NoAnswerUncited
	case g.Supported < o.MinSupported:
		return protocol.NoAnswerUnsupported
	}
	return ""
}

func (o AnswerOptions) withDefaults() AnswerOptions {
	if o.HighScore <= 0 {
		o.HighScore = DefaultHighScore
	}
	if o.MediumScore <= 0 {
		o.MediumScore = DefaultMediumScore
	}
	if o.SupportThreshold <= 0 {
		o.SupportThreshold = DefaultSupportThreshold
	}
	if o.MinSupported <= 0 {
		o.MinSupported = DefaultMinSupported
	}
	if len(o.EmptyResponses) == 0 {
		o.EmptyResponses = defaultEmptyResponses[:len(defaultEmptyResponses):len(defaultEmptyResponses)]
	} else {
		o.EmptyResponses = append(slices.Clip(defaultEmptyResponses), o.EmptyResponses...)
	}
	return o
}

// defaultEmptyResponses are RAGFlow's two texts, which always count; an
// answer without extra ones shares this list (clipped: an append copies).
var defaultEmptyResponses = []string{RAGFlowEmptyResponse, RAGFlowNotInDataset}

func markNoAnswer(s AnswerStats) AnswerStats {
	s.NoAnswer = true
	return s
}

// isEmptyResponse: the text, markers stripped, says nothing (no letter or
// digit) or is one of the empty-response texts. Both sides are trimmed,
// HTML-unescaped (G2 escapes empty_response), whitespace-collapsed and
// compared case-insensitively, final punctuation aside.
func isEmptyResponse(text string, empties []string) bool {
	if surelyLongerThanEmpties(text, empties) {
		return false
	}
	t := emptyResponseForm(ragflow.StripMarkers(text))
	if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return true
	}
	for _, e := range empties {
		if f := emptyForm(e); f != "" && strings.EqualFold(t, f) {
			return true
		}
	}
	return false
}

// surelyLongerThanEmpties: text keeps more letters, whatever markers and
// entities isEmptyResponse strips, than any empty-response form has runes,
// so it says something and equals none of them. A whole answer is read
// once instead of being stripped, unescaped and re-joined (the common
// case). Only letters that survive every step are counted: none inside
// brackets of any kind (every marker is bracketed: [ID:n], 【ID:n】,
// (ID:n), [n]; a marker's text holds no bracket, so a letter outside all
// brackets is outside every marker, even one formed by stripping an inner
// one), none in the run after '&' or '#' (an entity, a ##n$$ marker);
// blanks and final punctuation hold no letters.
func surelyLongerThanEmpties(text string, empties []string) bool {
	most := 0
	for _, e := range empties {
		most = max(most, utf8.RuneCountInString(emptyForm(e)))
	}
	letters, depth, skipRun := 0, 0, false
	for _, r := range text {
		switch {
		case r == '[' || r == '(' || r == '【' || r == '（':
			depth++
		case r == ']' || r == ')' || r == '】' || r == '）':
			depth = max(depth-1, 0)
		case r == '&' || r == '#':
			skipRun = true
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if depth == 0 && !skipRun && unicode.IsLetter(r) {
				if letters++; letters > most {
					return true // the count only grows
				}
			}
			continue
		}
		skipRun = false
	}
	return letters > most
}

// emptyForm is emptyResponseForm(e), RAGFlow's two texts' made once.
func emptyForm(e string) string {
	switch e {
	case RAGFlowEmptyResponse:
		return ragflowEmptyForm
	case RAGFlowNotInDataset:
		return ragflowNotInDatasetForm
	}
	return emptyResponseForm(e)
}

var (
	ragflowEmptyForm        = emptyResponseForm(RAGFlowEmptyResponse)
	ragflowNotInDatasetForm = emptyResponseForm(RAGFlowNotInDataset)
)

func emptyResponseForm(s string) string {
	s = strings.Join(strings.Fields(html.UnescapeString(s)), " ")
	return strings.TrimRight(s, ".!。！ ")
}

// noAnswerMessages explain each no-answer reason to the caller.
var noAnswerMessages = map[string]string{
	protocol.NoAnswerNoEvidence:    "No documentation in the requested scope matches this question.",
	protocol.NoAnswerEmptyResponse: "The knowledge base found nothing that answers this question.",
	protocol.NoAnswerUncited:       "No answer backed by a citation could be given, so none is shown.",
	protocol.NoAnswerUnsupported:   "Too little of the generated answer was supported by the documentation it cited, so none is shown.",
}

// NoAnswerReasonOf is the no-answer body of a reason code, with its message,
// as an answer gave it: a session's history shows a stored turn's reason.
func NoAnswerReasonOf(reason string) *protocol.NoAnswerReason {
	return &protocol.NoAnswerReason{Code: protocol.CodeNoAnswer, Reason: reason, Message: noAnswerMessages[reason]}
}

// noAnswer is the honest "no answer" (docs/protocol.md, "AnswerResult", No
// answer): empty answer, low confidence, a reason, no citations, and the
// feedback actions carrying the dedupe key, enabled when the caller may use
// those tools. Pages that were retrieved in scope are still listed as related
// pages.
func noAnswer(reason string, chunks []ragflow.Chunk, inScope []bool, o AnswerOptions) protocol.AnswerResult {
	related := []protocol.RelatedPage{}
	if chunks != nil {
		related = ragRelatedPages(chunks, inScope, nil)
	}
	key := o.DedupeKey
	if key == "" && o.NoAnswerKey != nil {
		key = o.NoAnswerKey()
	}
	return protocol.AnswerResult{
		Citations:  []protocol.Citation{},
		Confidence: protocol.ConfidenceLow,
		Grounding:  protocol.Grounding{Status: protocol.GroundingUngrounded, Citations: []protocol.CitationGrounding{}},
		NoAnswerReason: &protocol.NoAnswerReason{
			Code:    protocol.CodeNoAnswer,
			Reason:  reason,
			Message: noAnswerMessages[reason],
		},
		RelatedPages: related,
		Actions:      Actions(true, key, o),
	}
}

// answeredActions is the create_feedback action of an answer, keyed over
// its citation paths; none without AnswerKey.
func answeredActions(cites []protocol.Citation, o AnswerOptions) []protocol.Action {
	if o.AnswerKey == nil {
		return []protocol.Action{}
	}
	return Actions(false, o.AnswerKey(CitationPaths(cites)), o)
}

// Actions are the follow-ups offered with a result (docs/protocol.md,
// AnswerResult: Actions), each carrying key and enabled when the caller
// may use its tool (o.WriteTools): create_feedback always, naming
// o.FeedbackEndpoint where set; create_improvement_task with a no-answer
// only (a gap to fill, where an answer gets a rating). A session's history
// offers its turns' actions with the same function.
func Actions(noAnswer bool, key string, o AnswerOptions) []protocol.Action {
	acts := []protocol.Action{
		{Type: protocol.ActionCreateFeedback, Enabled: slices.Contains(o.WriteTools, protocol.ActionCreateFeedback), DedupeKey: key, Endpoint: o.FeedbackEndpoint},
	}
	if noAnswer {
		acts = append(acts, protocol.Action{Type: protocol.ActionCreateImprovementTask, Enabled: slices.Contains(o.WriteTools, protocol.ActionCreateImprovementTask), DedupeKey: key})
	}
	return acts
}

// CitationPaths are the paths of cites, in order: what an answer's
// feedback key covers and what its feedback sends back as citations.
func CitationPaths(cites []protocol.Citation) []string {
	paths := make([]string, len(cites))
	for i, c := range cites {
		paths[i] = c.Path
	}
	return paths
}
