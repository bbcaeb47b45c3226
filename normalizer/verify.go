package normalizer

import (
	"unicode/utf8"

	"github.com/wikigate/wikigate/ragflow"
)

// verdict is what verification decided for one piece of an answer.
type verdict struct {
	keep      bool
	runes     int       // length of what the piece says (claims and code)
	chunks    []int     // the chunks (prompt blocks) that support it, first cited first
	scores    []float64 // their support scores
	gateCited bool      // the one chunk was found by the gate, not cited by the model
}

// verifier checks each claim of an answer against the chunks it cites.
type verifier struct {
	text      string
	chunks    []ragflow.Chunk
	inScope   []bool
	threshold float64
	gateCites bool // requireCitations:false: the gate may cite on the model's behalf
	texts     chunkTexts
	// supports and scores hold every verdict's chunks and scores, each
	// verdict a capped run of them: two allocations an answer, not two a
	// sentence.
	supports []int
	scores   []float64
}

// newVerifier checks text against chunks; texts are the chunk texts read
// so far (nil: none), which it reads on and shares.
func newVerifier(text string, chunks []ragflow.Chunk, inScope []bool, texts chunkTexts, o AnswerOptions) *verifier {
	if texts == nil {
		texts = make(chunkTexts, len(chunks))
	}
	return &verifier{text: text, chunks: chunks, inScope: inScope, threshold: o.SupportThreshold,
		gateCites: !o.RequireCitations, texts: texts}
}

// verify decides every piece. A claim is kept when a chunk it cites (a
// valid marker to an in-scope chunk) supports it at the threshold, or,
// when the gate may cite, when the best-supporting in-scope chunk does. A
// code block without markers of its own is checked against the chunks of
// the claim that introduces it. A heading is kept when something under it
// is. Markers to chunks that do not support their claim are dropped.
func (v *verifier) verify(pieces []piece) []verdict {
	out := make([]verdict, len(pieces))
	blocks := 0
	for _, p := range pieces {
		for _, m := range p.markers {
			blocks += len(m.Blocks)
		}
	}
	v.supports, v.scores = make([]int, 0, blocks), make([]float64, 0, blocks)
	var intro []int
	for i, p := range pieces {
		if p.kind != claimPiece && p.kind != codePiece {
			continue
		}
		plain := plainText(v.text, p)
		cited := v.validBlocks(p.markers)
		if p.kind == codePiece && len(cited) == 0 {
			cited = intro
		}
		out[i] = v.check(tokenizeClaim(plain), cited, p.kind == claimPiece && v.gateCites)
		out[i].runes = utf8.RuneCountInString(plain)
		if p.kind == claimPiece {
			intro = out[i].chunks
		}
	}
	keepHeadings(pieces, out)
	return out
}

func (v *verifier) check(ct claimTokens, cited []int, mayInfer bool) verdict {
	var vd verdict
	start := len(v.supports)
	for _, n := range cited {
		if s := ct.scoreAbove(v.chunkText(n), v.threshold); s >= v.threshold {
			v.supports, v.scores = append(v.supports, n), append(v.scores, s)
		}
	}
	if end := len(v.supports); end > start { // capped: later appends never show here
		vd.chunks, vd.scores = v.supports[start:end:end], v.scores[start:end:end]
	}
	if len(vd.chunks) == 0 && mayInfer && ct.total > 0 {
		if n, s := v.best(ct); n >= 0 && s >= v.threshold {
			vd.chunks, vd.scores, vd.gateCited = []int{n}, []float64{s}, true
		}
	}
	vd.keep = len(vd.chunks) > 0
	return vd
}

// best is the in-scope chunk that supports ct most (the first on a tie).
func (v *verifier) best(ct claimTokens) (int, float64) {
	best, top := -1, -1.0
	for n := range v.chunks {
		if !v.inScope[n] {
			continue
		}
		if s := ct.scoreAbove(v.chunkText(n), max(top, v.threshold)); s > top && s >= v.threshold {
			best, top = n, s
		}
	}
	return best, top
}

// validBlocks are the distinct blocks of markers that name an in-scope
// chunk of the prompt, in order.
func (v *verifier) validBlocks(markers []ragflow.Marker) []int {
	var out []int
	for _, m := range markers {
		for _, n := range m.Blocks {
			if v.valid(n) && !containsInt(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func (v *verifier) valid(n int) bool { return n >= 0 && n < len(v.chunks) && v.inScope[n] }

func (v *verifier) chunkText(n int) *chunkText { return v.texts.of(n, v.chunks[n].Content) }

// keepHeadings keeps a heading when a claim or code block under it (before
// the next heading) is kept.
func keepHeadings(pieces []piece, out []verdict) {
	under := false
	for i := len(pieces) - 1; i >= 0; i-- {
		switch pieces[i].kind {
		case claimPiece, codePiece:
			under = under || out[i].keep
		case headingPiece:
			out[i].keep, under = under, false
		}
	}
}

func containsInt(s []int, n int) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}
