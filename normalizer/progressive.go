package normalizer

import (
	"strings"
	"unicode"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// Progressive verifies an answer while it is generated, so a streamed
// answer (DESIGN §12) shows only what Answer would show: sentences
// verified against the in-scope chunks they cite, with their references
// already in the final numbering. It never hands out model text as it
// came: a sentence is shown once it is complete (the next one has begun),
// kept, and every reference up to it can no longer be renumbered by what
// is still to come. What is held back arrives with Finish.
type Progressive struct {
	chunks  []ragflow.Chunk
	inScope []bool
	o       AnswerOptions
	settled int    // claims that were complete at the last look
	shown   string // the verified text handed out so far
	cited   int    // citations handed out so far
	off     bool   // the rendering stopped extending what was shown
}

// NewProgressive verifies a generation from chunks (the prompt's blocks)
// inside eff, with the options the final Answer will use.
func NewProgressive(chunks []ragflow.Chunk, eff protocol.Scope, o AnswerOptions) *Progressive {
	p := &Progressive{chunks: chunks, inScope: make([]bool, len(chunks)), o: o.withDefaults()}
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
	text = dropSentinels.Replace(text)
	pieces := completePieces(text, splitAnswer(text))
	n := countClaims(pieces)
	if n == p.settled {
		return "", nil
	}
	p.settled = n
	verdicts := newVerifier(text, p.chunks, p.inScope, p.o).verify(pieces)
	if withheld(measureGrounding(pieces, verdicts), p.o) != "" || isEmptyResponse(text, p.o.EmptyResponses) {
		return "", nil // a no-answer so far: show nothing yet
	}
	nb := numberCitations(p.chunks, verdicts)
	final := p.finalRefs(nb, verdicts)
	last := lastShowable(pieces, verdicts, p.chunks, nb.ref, final)
	if last < 0 {
		return "", nil
	}
	rendered := renderAnswer(text, pieces[:last+1], verdicts[:last+1], p.chunks, nb.ref)
	if !strings.HasPrefix(rendered, p.shown) {
		p.off = true // the result will say what stands
		return "", nil
	}
	delta, p.shown = rendered[len(p.shown):], rendered
	if final > p.cited {
		p.cited = final
		citations = nb.citations[:final]
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

// finalRefs is how many of the citations, from [1], keep their number
// whatever is generated next. The final numbering orders cited chunks by
// retrieval score (first mention on a tie), so [k] is final once no
// uncited in-scope chunk scores above [k]'s chunk and no chunk of [1]..[k]
// can still gain a higher score from a later citation.
func (p *Progressive) finalRefs(nb numbering, verdicts []verdict) int {
	score := map[string]float64{}
	for _, vd := range verdicts {
		for _, n := range vd.chunks {
			score[p.chunks[n].ID] = max(score[p.chunks[n].ID], p.chunks[n].Similarity)
		}
	}
	k := 0
	for k < len(nb.citations) && p.refFixed(k+1, nb.ref, score) {
		k++
	}
	return k
}

func (p *Progressive) refFixed(k int, ref map[string]int, score map[string]float64) bool {
	atK := score[numbered(ref, k)]
	for n := range p.chunks {
		if !p.inScope[n] {
			continue
		}
		c := &p.chunks[n]
		if j, ok := ref[c.ID]; ok && j <= k {
			if c.Similarity > score[c.ID] {
				return false
			}
		} else if c.Similarity > atK {
			return false
		}
	}
	return true
}

// numbered is the chunk id numbered k.
func numbered(ref map[string]int, k int) string {
	for id, j := range ref {
		if j == k {
			return id
		}
	}
	return ""
}

// lastShowable is the last kept claim or code block such that every kept
// piece up to it cites only final references; -1 when there is none.
func lastShowable(pieces []piece, verdicts []verdict, chunks []ragflow.Chunk, ref map[string]int, final int) int {
	last := -1
	for i, pc := range pieces {
		if !verdicts[i].keep || (pc.kind != claimPiece && pc.kind != codePiece) {
			continue
		}
		for _, n := range verdicts[i].chunks {
			if ref[chunks[n].ID] > final {
				return last
			}
		}
		last = i
	}
	return last
}
