package normalizer

import (
	"strings"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// Question coverage (docs/protocol.md, "AnswerResult", No answer): how
// much of what a question asks the chunks an answer cites talk about. A
// supported answer can still miss the question: asked "how do I enable
// HTTP/3 over QUIC?", a model finds sentences about HTTP/2 and cites them
// faithfully. Coverage weighs the question's words as support scoring
// weighs a sentence's (names, numbers and identifiers count most) and is
// the share of that weight found in at least one cited chunk.
const (
	// DefaultMinCoverage: an answer whose cited chunks hold less than this
	// share of the question is withheld as a no-answer (no_evidence).
	DefaultMinCoverage = 0.4
	// fullCoverage is the share an answer needs when its best cited chunk
	// scores under MediumScore (weak evidence must at least be on topic),
	// and for high confidence.
	fullCoverage = 0.75
)

// questionWords frame a question without naming what it is about ("how
// long", "how many", "what happens"); they are left out of its weight.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`who whom whose why where long many much often happen happens
		make makes get gets way need want tell explain show know kind sort`) {
		questionWords[w], questionWords[stem(w)] = true, true
	}
}

// questionTokens are a question's weighed words: support scoring's tokens
// less one-letter words ("I") and the question's own framing words.
func questionTokens(question string) claimTokens {
	ct := tokenizeClaim(question)
	out := claimTokens{tokens: make([]token, 0, len(ct.tokens))}
	for _, t := range ct.tokens {
		if len([]rune(t.text)) < 2 || (t.kind == wordToken && questionWords[t.text]) {
			continue
		}
		out.add(t)
	}
	return out
}

// Coverage is the share (0..1) of the question's weight found in the
// chunks. CJK words count only when some chunk holds CJK text (a Chinese
// question over English pages is judged on its names and identifiers); a
// question with nothing left to weigh is covered (1). A dotted identifier
// ("server.max_concurrent_turns") is found whole or as all its parts, the
// way a configuration page writes it as nested keys.
func Coverage(question string, chunks []ragflow.Chunk) float64 {
	texts := make([]*chunkText, len(chunks))
	for i := range chunks {
		t := newChunkText(chunks[i].Content)
		texts[i] = &t
	}
	return coverage(question, texts)
}

// coverage is Coverage over the chunks' texts.
func coverage(question string, texts []*chunkText) float64 {
	ct := questionTokens(question)
	cjk := false
	for _, t := range texts {
		cjk = cjk || t.cjk
	}
	total, found := 0, 0
	for _, t := range ct.tokens {
		if t.kind == cjkToken && !cjk {
			continue
		}
		total += t.weight
		if foundInAny(t, texts) {
			found += t.weight
		}
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}

func foundInAny(t token, texts []*chunkText) bool {
	for _, c := range texts {
		if t.found(c) || t.kind == exactToken && partsFound(t.text, c) {
			return true
		}
	}
	return false
}

// partsFound: every "."-separated part of a dotted identifier is a word of c.
func partsFound(ident string, c *chunkText) bool {
	parts := strings.Split(ident, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !containsWord(c.lower, p, true) {
			return false
		}
	}
	return true
}

// citedTexts are the texts of the chunks the citations name, in citation
// order: for each, the first chunk with its id, as grounding read it
// (read, by the chunks' index) or read now.
func citedTexts(chunks []ragflow.Chunk, cites []protocol.Citation, read *chunkTexts) []*chunkText {
	out := make([]*chunkText, 0, len(cites))
	for _, c := range cites {
		for i := range chunks {
			if chunks[i].ID == c.ChunkID {
				out = append(out, readText(read, i, chunks[i].Content))
				break
			}
		}
	}
	return out
}

// readText is chunk i's text: read's, when grounding read that very
// content there, else read now.
func readText(read *chunkTexts, i int, content string) *chunkText {
	if read != nil && i < len(*read) {
		if t := &(*read)[i]; t.read && t.raw == content {
			return t
		}
	}
	t := newChunkText(content)
	return &t
}

// CheckCoverage is an answer's last check (docs/protocol.md, "AnswerResult",
// No answer): res, built by Answer from chunks, unchanged when its cited
// chunks address the question, else the no-answer no_evidence (with the
// actions and related pages Answer gives one). Unaddressed means covering
// under minCoverage of the question (DefaultMinCoverage when <= 0), or,
// when the best cited chunk scores under MediumScore (weak evidence),
// under fullCoverage. An answer that stays but covers under fullCoverage
// is at most medium confidence.
func CheckCoverage(res protocol.AnswerResult, stats AnswerStats, question string, minCoverage float64,
	chunks []ragflow.Chunk, eff protocol.Scope, o AnswerOptions) (protocol.AnswerResult, AnswerStats) {
	if res.NoAnswerReason != nil || question == "" {
		return res, stats
	}
	o = o.withDefaults()
	if minCoverage <= 0 {
		minCoverage = DefaultMinCoverage
	}
	covered := coverage(question, citedTexts(chunks, res.Citations, stats.read))
	if covered < minCoverage || res.Grounding.TopScore < o.MediumScore && covered < fullCoverage {
		inScope := make([]bool, len(chunks))
		for i := range chunks {
			inScope[i] = ragChunkInScope(&chunks[i], eff)
		}
		stats.Citations = 0
		return noAnswer(protocol.NoAnswerNoEvidence, chunks, inScope, o), markNoAnswer(stats)
	}
	if covered < fullCoverage && res.Confidence == protocol.ConfidenceHigh {
		res.Confidence = protocol.ConfidenceMedium
	}
	return res, stats
}
