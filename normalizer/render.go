package normalizer

import (
	"math"
	"slices"
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
	ref       refs
	topScore  float64
}

// refs are the chunk ids of the citations, in order: id's reference is
// its position + 1. An answer cites a handful of chunks, so a scan beats a
// map.
type refs []string

// of is the reference of chunk id; 0 when it is not cited.
func (rs refs) of(id string) int {
	for k, cited := range rs {
		if cited == id {
			return k + 1
		}
	}
	return 0
}

// citeStats gathers one chunk id's support over the answer.
type citeStats struct {
	chunk      *ragflow.Chunk
	similarity float64
	g          protocol.CitationGrounding
}

func numberCitations(chunks []ragflow.Chunk, verdicts []verdict) numbering {
	most := 0
	for _, vd := range verdicts {
		most += len(vd.chunks)
	}
	order := make([]citeStats, 0, most)
	for _, vd := range verdicts {
		for j, n := range vd.chunks {
			c := &chunks[n]
			k := slices.IndexFunc(order, func(st citeStats) bool { return st.g.ChunkID == c.ID })
			if k < 0 {
				k = len(order)
				order = append(order, citeStats{chunk: c, g: protocol.CitationGrounding{ChunkID: c.ID, Support: 1}})
			}
			st := &order[k]
			st.similarity = max(st.similarity, c.Similarity)
			st.g.Sentences++
			st.g.Support = min(st.g.Support, roundScore(vd.scores[j]))
			if vd.gateCited {
				st.g.GateCited++
			}
		}
	}
	nb := numbering{citations: make([]protocol.Citation, 0, len(order)), grounding: make([]protocol.CitationGrounding, 0, len(order)),
		ref: make(refs, 0, len(order))}
	for k := range order {
		st := &order[k]
		st.g.Ref = k + 1
		nb.ref = append(nb.ref, st.g.ChunkID)
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
	ref      refs
	b        strings.Builder
	trimNext bool   // a removed marker started a line: drop the blanks after it
	run      []int  // the references written in the current run of markers
	refBuf   []byte // a marker's references, as refs found them
}

func renderAnswer(text string, pieces []piece, verdicts []verdict, chunks []ragflow.Chunk, ref refs) string {
	r := &renderer{text: text, chunks: chunks, ref: ref}
	r.b.Grow(len(text) + 8*len(ref)) // the text, less markers, plus references
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
	if !vd.gateCited {
		r.writeCited(&r.b, p, vd)
		return
	}
	var b strings.Builder
	r.writeCited(&b, p, vd)
	r.b.WriteString(insertRef(b.String(), r.ref.of(r.chunks[vd.chunks[0]].ID)))
}

// writeCited writes the piece to b, after what b holds.
func (r *renderer) writeCited(b *strings.Builder, p piece, vd verdict) {
	start, last := b.Len(), p.start
	r.run = r.run[:0]
	for _, m := range p.markers {
		before := r.text[last:m.Start]
		last = m.End
		if r.trimNext {
			before = strings.TrimLeft(before, " \t")
		}
		if strings.TrimSpace(before) != "" {
			r.run = r.run[:0]
		}
		if !r.refs(m, vd) {
			b.WriteString(trimRightBlanks(before))
			written := b.String()[start:]
			r.trimNext = written == "" || strings.HasSuffix(written, "\n")
			continue
		}
		b.WriteString(before)
		writeRefs(b, start, r.refBuf, r.text[m.End:p.end])
		r.trimNext = false
	}
	rest := r.text[last:p.end]
	if r.trimNext {
		rest = strings.TrimLeft(rest, " \t")
	}
	b.WriteString(rest)
	r.trimNext = false
}

// refs puts in r.refBuf the references of a marker's blocks that support
// the piece and are not yet in the run (r.run), and reports whether there
// are any.
func (r *renderer) refs(m ragflow.Marker, vd verdict) bool {
	r.refBuf = r.refBuf[:0]
	for _, n := range m.Blocks {
		if !containsInt(vd.chunks, n) {
			continue
		}
		k := r.ref.of(r.chunks[n].ID)
		if !containsInt(r.run, k) {
			r.run = append(r.run, k)
			r.refBuf = appendGateRef(r.refBuf, k)
		}
	}
	return len(r.refBuf) > 0
}

// writeRefs writes references so they read as references again: never
// glued to a word before them ("store[1]" is an index) nor to a "(" after
// them ("[1](x)" is a link). What b held before start is not the piece's.
func writeRefs(b *strings.Builder, start int, refs []byte, after string) {
	if r, _ := utf8.DecodeLastRuneInString(b.String()[start:]); b.Len() > start && ragflow.IsWordRune(r) {
		b.WriteByte(' ')
	}
	b.Write(refs)
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
