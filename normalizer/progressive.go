package normalizer

import (
	"strings"
	"unicode"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// Progressive verifies an answer while it is generated, so a streamed
// answer (docs/docs-sites.md "Streaming") shows only what Answer would
// show: sentences verified against the in-scope chunks they cite, with
// their references already in the final numbering. It never hands out
// model text as it came: a sentence is shown once it is complete (the next
// one has begun) and kept. Citations are numbered in order of first
// citation, so what comes later never renumbers a reference already shown
// and no sentence waits for a later one. What is held back (the last
// sentence, or text shown only once the whole answer is supported enough)
// arrives with Finish.
type Progressive struct {
	chunks  []ragflow.Chunk
	inScope []bool
	o       AnswerOptions
	settled int        // claims that were complete at the last look
	shown   string     // the verified text handed out so far
	cited   int        // citations handed out so far
	off     bool       // the rendering stopped extending what was shown
	texts   chunkTexts // the chunk texts read so far: each Advance verifies again
}

// NewProgressive verifies a generation from chunks (the prompt's blocks)
// inside eff, with the options the final Answer will use.
func NewProgressive(chunks []ragflow.Chunk, eff protocol.Scope, o AnswerOptions) *Progressive {
	p := &Progressive{chunks: chunks, inScope: make([]bool, len(chunks)), o: o.withDefaults(), texts: make(chunkTexts, len(chunks))}
	for i := range chunks {
		p.inScope[i] = ragChunkInScope(&chunks[i], eff)
	}
	return p
}

// Advance takes the generated text so far. It returns the verified text
// that became safe to show since the last call ("" when none), and, when
// more citations became final, every final citation known so far.
func (p *Progressive) Advance(text string) (delta string, citations []protocol.Citation) {
	if p.off {
		return "", nil
	}
	text = dropSentinels(text)
	pieces := completePieces(text, splitAnswer(text))
	n := countClaims(pieces)
	if n == p.settled {
		return "", nil
	}
	p.settled = n
	verdicts := newVerifier(text, p.chunks, p.inScope, p.texts, p.o).verify(pieces)
	if withheld(measureGrounding(pieces, verdicts), p.o) != "" || isEmptyResponse(text, p.o.EmptyResponses) {
		return "", nil // a no-answer so far: show nothing yet
	}
	last := lastShowable(pieces, verdicts)
	if last < 0 {
		return "", nil
	}
	nb := numberCitations(p.chunks, verdicts[:last+1])
	rendered := renderAnswer(text, pieces[:last+1], verdicts[:last+1], p.chunks, nb.ref)
	if !strings.HasPrefix(rendered, p.shown) {
		p.off = true // the result will say what stands
		return "", nil
	}
	delta, p.shown = rendered[len(p.shown):], rendered
	if len(nb.citations) > p.cited {
		p.cited = len(nb.citations)
		citations = nb.citations
	}
	return delta, citations
}

// Finish returns what the final result shows beyond the text handed out
// ("" for a no-answer, or when the result does not extend what was shown:
// then the result replaces it).
func (p *Progressive) Finish(res protocol.AnswerResult) string {
	if p.off || res.NoAnswerReason != nil || !strings.HasPrefix(res.Answer, p.shown) {
		return ""
	}
	rest := res.Answer[len(p.shown):]
	p.shown = res.Answer
	return rest
}

// completePieces drops the last piece that says anything, and what follows
// it: it may still grow (a sentence without its end, a marker half
// written, an open code fence).
func completePieces(text string, pieces []piece) []piece {
	for i := len(pieces) - 1; i >= 0; i-- {
		if pieces[i].kind != gapPiece && startsSomething(text[pieces[i].start:pieces[i].end]) {
			return pieces[:i]
		}
	}
	return nil
}

// startsSomething: s holds a letter or digit outside markers and outside a
// trailing half-written marker ("[ID:", "##1"), so the piece before it
// has ended for good.
func startsSomething(s string) bool {
	s = ragflow.StripMarkers(s)
	if i := strings.LastIndexAny(s, "[#"); i >= 0 && !strings.ContainsAny(s[i:], "]$") {
		s = s[:i]
	}
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

func countClaims(pieces []piece) int {
	n := 0
	for _, p := range pieces {
		if p.kind == claimPiece || p.kind == codePiece {
			n++
		}
	}
	return n
}

// lastShowable is the last kept claim or code block; -1 when there is
// none. Everything up to it is final: its verdicts depend only on the text
// before it, and its references on the citations before it.
func lastShowable(pieces []piece, verdicts []verdict) int {
	last := -1
	for i, pc := range pieces {
		if verdicts[i].keep && (pc.kind == claimPiece || pc.kind == codePiece) {
			last = i
		}
	}
	return last
}
