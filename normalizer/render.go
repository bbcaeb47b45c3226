package normalizer

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// numbering is the returned citations list: the supporting chunks,
// de-duplicated by chunk id, in order of first citation in the kept text,
// and each chunk id's reference [n] (its 1-based position). Numbering by
// first citation keeps every number fixed from its first use, so a
// streamed sentence never waits for a later one (docs/docs-sites.md
// "Streaming").
type numbering struct {
	citations []protocol.Citation
	grounding []protocol.CitationGrounding
	ref       map[string]int
	topScore  float64
}

// citeStats gathers one chunk id's support over the answer.
type citeStats struct {
	chunk      *ragflow.Chunk
	similarity float64
	g          protocol.CitationGrounding
}

func numberCitations(chunks []ragflow.Chunk, verdicts []verdict) numbering {
	var order []*citeStats
	byID := map[string]*citeStats{}
	for _, vd := range verdicts {
		for j, n := range vd.chunks {
			c := &chunks[n]
			st := byID[c.ID]
			if st == nil {
				st = &citeStats{chunk: c, g: protocol.CitationGrounding{ChunkID: c.ID, Support: 1}}
				byID[c.ID] = st
				order = append(order, st)
			}
			st.similarity = max(st.similarity, c.Similarity)
			st.g.Sentences++
			st.g.Support = min(st.g.Support, roundScore(vd.scores[j]))
			if vd.gateCited {
				st.g.GateCited++
			}
		}
	}
	nb := numbering{citations: []protocol.Citation{}, grounding: []protocol.CitationGrounding{}, ref: map[string]int{}}
	for k, st := range order {
		st.g.Ref = k + 1
		nb.ref[st.g.ChunkID] = k + 1
		nb.citations = append(nb.citations, ragCitation(st.chunk))
		nb.grounding = append(nb.grounding, st.g)
		nb.topScore = max(nb.topScore, st.similarity)
	}
	return nb
}

// roundScore keeps three decimals: enough to compare with a threshold.
func roundScore(s float64) float64 { return math.Round(s*1000) / 1000 }

// renderer writes the kept pieces of an answer with its markers rewritten
// to the citations' numbering ([1], [2]...), dropping the markers that
// name no supporting chunk and the pieces that were not kept.
type renderer struct {
	text     string
	chunks   []ragflow.Chunk
	ref      map[string]int
	b        strings.Builder
	trimNext bool // a removed marker started a line: drop the blanks after it
}

func renderAnswer(text string, pieces []piece, verdicts []verdict, chunks []ragflow.Chunk, ref map[string]int) string {
	r := &renderer{text: text, chunks: chunks, ref: ref}
	for i, p := range pieces {
		switch {
		case p.kind == gapPiece:
			r.gap(p, keptAt(verdicts, i-1), keptAt(verdicts, i+1))
		case !verdicts[i].keep:
		case p.kind == headingPiece:
			r.b.WriteString(plainText(text, p))
		default:
			r.cited(p, verdicts[i])
		}
	}
	return finishRefs(strings.TrimSpace(r.b.String()))
}

func keptAt(verdicts []verdict, i int) bool { return i >= 0 && i < len(verdicts) && verdicts[i].keep }

// gap keeps the text between two kept pieces as it was; next to a dropped
// piece it keeps only line structure (at most one blank line) and the
// next kept line's indentation, or one space between sentences of a line.
func (r *renderer) gap(p piece, prevKept, nextKept bool) {
	s := r.text[p.start:p.end]
	if prevKept && nextKept {
		r.b.WriteString(plainText(r.text, p))
		return
	}
	out := r.b.String()
	nl := strings.Count(s, "\n")
	switch {
	case out == "":
	case nl > 0:
		trailing := len(out) - len(strings.TrimRight(out, "\n"))
		r.b.WriteString(strings.Repeat("\n", max(0, min(nl, 2-trailing))))
		if nextKept {
			r.b.WriteString(strings.Trim(s[strings.LastIndexByte(s, '\n')+1:], "\r"))
		}
	case nextKept && !strings.HasSuffix(out, " ") && !strings.HasSuffix(out, "\n"):
		r.b.WriteByte(' ')
	}
}

// cited writes a kept claim or code block: each marker becomes the
// references of its supporting chunks (repeats within one run of markers
// written once) or goes, with the blanks before it. A claim the gate cited
// gets its reference before its closing punctuation.
func (r *renderer) cited(p piece, vd verdict) {
	var b strings.Builder
	last, run := p.start, map[int]bool{}
	for _, m := range p.markers {
		before := r.text[last:m.Start]
		last = m.End
		if r.trimNext {
			before = strings.TrimLeft(before, " \t")
		}
		if strings.TrimSpace(before) != "" {
			clear(run)
		}
		refs := r.refs(m, vd, run)
		if refs == "" {
			b.WriteString(trimRightBlanks(before))
			r.trimNext = b.Len() == 0 || strings.HasSuffix(b.String(), "\n")
			continue
		}
		b.WriteString(before)
		writeRefs(&b, refs, r.text[m.End:p.end])
		r.trimNext = false
	}
	rest := r.text[last:p.end]
	if r.trimNext {
		rest = strings.TrimLeft(rest, " \t")
	}
	b.WriteString(rest)
	r.trimNext = false
	out := b.String()
	if vd.gateCited {
		out = insertRef(out, r.ref[r.chunks[vd.chunks[0]].ID])
	}
	r.b.WriteString(out)
}

// refs are the references of a marker's blocks that support the piece.
func (r *renderer) refs(m ragflow.Marker, vd verdict, run map[int]bool) string {
	var s strings.Builder
	for _, n := range m.Blocks {
		if !containsInt(vd.chunks, n) {
			continue
		}
		k := r.ref[r.chunks[n].ID]
		if !run[k] {
			run[k] = true
			s.WriteString(gateRef(k))
		}
	}
	return s.String()
}

// writeRefs writes references so they read as references again: never
// glued to a word before them ("store[1]" is an index) nor to a "(" after
// them ("[1](x)" is a link).
func writeRefs(b *strings.Builder, refs, after string) {
	if r, _ := utf8.DecodeLastRuneInString(b.String()); b.Len() > 0 && ragflow.IsWordRune(r) {
		b.WriteByte(' ')
	}
	b.WriteString(refs)
	if strings.HasPrefix(after, "(") {
		b.WriteByte(' ')
	}
}

// closingPunct ends a sentence; a gate-cited reference goes before it.
const closingPunct = ".!?。！？:;：；"

func insertRef(s string, k int) string {
	body := strings.TrimRight(s, closingPunct)
	ref := gateRef(k)
	if r, _ := utf8.DecodeLastRuneInString(body); ragflow.IsWordRune(r) || strings.ContainsRune(")]`*_\"'”"+refClose, r) {
		ref = " " + ref
	}
	return body + ref + s[len(body):]
}
