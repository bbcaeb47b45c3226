package normalizer

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/ragflow"
)

// pieceKind says what a piece of an answer is.
type pieceKind uint8

const (
	gapPiece     pieceKind = iota // blanks and bare punctuation between claims
	claimPiece                    // a sentence that says something: it needs a citation
	headingPiece                  // a markdown heading: a label, not a claim
	codePiece                     // a fenced code block, fences included: a claim too
)

// piece is the span text[start:end] of an answer. markers are the markers
// inside it; a code block keeps only RAGFlow-style ones, since a bare
// "[0]" in code is code.
type piece struct {
	kind       pieceKind
	start, end int
	markers    []ragflow.Marker
}

var (
	mdLeader   = regexp.MustCompile(`^\s*(?:[-*+>]\s+|\d+[.)]\s+|#{1,6}\s+)+`)
	listNumber = regexp.MustCompile(`^\s*(?:[-*+>]\s+)*\d+[.)]$`)
)

// maxListNumber bounds what listNumber needs to look at ("  - 12.").
const maxListNumber = 16

// splitter partitions an answer into pieces.
type splitter struct {
	text    string
	markers []ragflow.Marker
	pieces  []piece
	next    int // where markerAt's search starts
}

// splitAnswer partitions text into pieces, in order, covering all of it.
// Sentences end at . ! ? before a blank or the end, at 。！？ and at line
// ends; a list number ("1.") does not end one. A marker belongs to the
// sentence it is in; markers after a sentence's end, with only blanks
// between ("... engine. [ID:0]", or on the next line), belong to that
// sentence; markers before the first sentence belong to it.
func splitAnswer(text string) []piece {
	// About a claim and a gap a sentence, a sentence some 60 bytes or more.
	sp := &splitter{text: text, markers: ragflow.FindAllMarkers(text), pieces: make([]piece, 0, len(text)/30+2)}
	proseStart := 0
	for pos := 0; pos < len(text); {
		lineEnd := lineEndAt(text, pos)
		line := text[pos:lineEnd]
		if kind, end, ok := sp.block(pos, lineEnd, line); ok {
			sp.prose(proseStart, pos)
			sp.add(kind, pos, end)
			pos, proseStart = end, end
			continue
		}
		pos = lineEnd
	}
	sp.prose(proseStart, len(text))
	sp.assignMarkers()
	return sp.pieces
}

// block reports where a heading (its line, without the line break) or a
// fenced code block (up to its closing fence, or the end) starting at pos
// ends. A marker crossing either edge keeps the line prose.
func (sp *splitter) block(pos, lineEnd int, line string) (pieceKind, int, bool) {
	var kind pieceKind
	var end int
	if t := strings.TrimLeft(line, " "); t == "" || !strings.ContainsRune("`~#", rune(t[0])) {
		return 0, 0, false // neither a fence nor a heading: skip the regexps
	}
	switch {
	case isCodeFence(line):
		kind, end = codePiece, fenceEnd(sp.text, lineEnd)
		if !saysAnything(sp.text[lineEnd:end]) {
			kind = gapPiece // an empty block claims nothing
		}
	case isHeadingLine(line):
		kind, end = headingPiece, trimLineEnd(sp.text, pos, lineEnd)
	default:
		return 0, 0, false
	}
	if sp.crosses(pos) || sp.crosses(end) {
		return 0, 0, false
	}
	return kind, end, true
}

// saysAnything: a code block's body (after its opening line; a closing
// fence has no letters) holds a letter or digit outside [ID:n] markers.
func saysAnything(body string) bool {
	last := 0
	for _, m := range ragflow.FindMarkers(body) {
		if wordy(body[last:m.Start]) {
			return true
		}
		last = m.End
	}
	return wordy(body[last:])
}

func wordy(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// fenceEnd is the end of the line closing the fence opened before from.
func fenceEnd(text string, from int) int {
	for pos := from; pos < len(text); {
		lineEnd := lineEndAt(text, pos)
		if isCodeFence(text[pos:lineEnd]) {
			return trimLineEnd(text, pos, lineEnd)
		}
		pos = lineEnd
	}
	return len(text)
}

func lineEndAt(text string, pos int) int {
	for i := pos; i < len(text); i++ {
		if text[i] == '\n' {
			return i + 1
		}
	}
	return len(text)
}

// trimLineEnd is lineEnd without its "\n" or "\r\n".
func trimLineEnd(text string, pos, lineEnd int) int {
	for lineEnd > pos && (text[lineEnd-1] == '\n' || text[lineEnd-1] == '\r') {
		lineEnd--
	}
	return lineEnd
}

// crosses: a marker starts before pos and ends after it.
func (sp *splitter) crosses(pos int) bool {
	for _, m := range sp.markers {
		if m.Start < pos && pos < m.End {
			return true
		}
	}
	return false
}

// markerAt is the marker starting at pos. Positions are mostly asked for
// in increasing order, so the search goes on from the last answer's index
// (sp.next: the first marker starting at or after the last pos asked).
func (sp *splitter) markerAt(pos int) (ragflow.Marker, bool) {
	i := sp.next
	if i > 0 && sp.markers[i-1].Start >= pos {
		i = sort.Search(len(sp.markers), func(i int) bool { return sp.markers[i].Start >= pos })
	}
	for i < len(sp.markers) && sp.markers[i].Start < pos {
		i++
	}
	sp.next = i
	if i < len(sp.markers) && sp.markers[i].Start == pos {
		return sp.markers[i], true
	}
	return ragflow.Marker{}, false
}

// add appends a piece, merging neighbouring gaps.
func (sp *splitter) add(kind pieceKind, start, end int) {
	if start >= end {
		return
	}
	if n := len(sp.pieces); kind == gapPiece && n > 0 && sp.pieces[n-1].kind == gapPiece && sp.pieces[n-1].end == start {
		sp.pieces[n-1].end = end
		return
	}
	sp.pieces = append(sp.pieces, piece{kind: kind, start: start, end: end})
}

// prose splits text[from:to] into claims and gaps. Markers with no words
// before them wait for the next claim.
func (sp *splitter) prose(from, to int) {
	carry := -1
	for i := from; i < to; {
		if j := skipBlanks(sp.text, i, to); j > i {
			if carry < 0 {
				sp.add(gapPiece, i, j)
			}
			i = j
			continue
		}
		end, content, marked := sp.sentence(i, to)
		end = sp.absorbMarkers(end, to)
		switch {
		case content:
			start := i
			if carry >= 0 {
				start, carry = carry, -1
			}
			sp.add(claimPiece, start, trimBlanksRight(sp.text, start, end))
		case marked && carry < 0:
			carry = i
		case carry < 0:
			sp.add(gapPiece, i, end)
		}
		i = end
	}
	if carry >= 0 {
		sp.add(gapPiece, carry, to)
	}
}

// sentence scans one sentence from i: its end, whether it says anything
// (a letter or digit outside markers), whether it holds a marker.
func (sp *splitter) sentence(i, to int) (end int, content, marked bool) {
	for k := i; k < to; {
		if m, ok := sp.markerAt(k); ok && m.End <= to {
			k, marked = m.End, true
			continue
		}
		r, size := rune(sp.text[k]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(sp.text[k:to])
		}
		if r == '\n' {
			return k, content, marked
		}
		k += size
		content = content || isLetterOrDigit(r)
		if sentenceEnds(r, sp.text[k:to]) && !(k-i <= maxListNumber && listNumber.MatchString(sp.text[i:k])) {
			return k, content, marked
		}
	}
	return to, content, marked
}

// absorbMarkers extends a sentence ending at end over the markers that
// follow it with only blanks between.
func (sp *splitter) absorbMarkers(end, to int) int {
	for {
		j := skipBlanks(sp.text, end, to)
		m, ok := sp.markerAt(j)
		if !ok || m.End > to {
			return end
		}
		end = m.End
	}
}

func skipBlanks(text string, i, to int) int {
	for i < to && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

func trimBlanksRight(text string, start, end int) int {
	for end > start && (text[end-1] == ' ' || text[end-1] == '\t' || text[end-1] == '\r') {
		end--
	}
	return end
}

// assignMarkers hands each piece the markers inside it: a run of
// sp.markers, shared (capped, so nothing appends into the next piece's),
// except in a code block with a bare marker, which gets a copy without.
func (sp *splitter) assignMarkers() {
	k := 0
	for i := range sp.pieces {
		p := &sp.pieces[i]
		for k < len(sp.markers) && sp.markers[k].Start < p.start {
			k++
		}
		from := k
		for k < len(sp.markers) && sp.markers[k].End <= p.end {
			k++
		}
		if from == k {
			continue
		}
		p.markers = sp.markers[from:k:k]
		if p.kind == codePiece && slices.ContainsFunc(p.markers, func(m ragflow.Marker) bool { return m.Bare }) {
			p.markers = slices.DeleteFunc(slices.Clone(p.markers), func(m ragflow.Marker) bool { return m.Bare })
			if len(p.markers) == 0 {
				p.markers = nil
			}
		}
	}
}

// isLetterOrDigit is unicode.IsLetter(r) || unicode.IsDigit(r), ASCII
// without the tables.
func isLetterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// sentenceEnds: CJK full stops always end a sentence; . ! ? only before a
// blank or the end (so "3.5" and "v1.0" stay whole).
func sentenceEnds(r rune, rest string) bool {
	switch r {
	case '。', '！', '？':
		return true
	case '.', '!', '?':
		if rest == "" {
			return true
		}
		next, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsSpace(next)
	}
	return false
}

// plainText is a piece's text without its markers (and the blanks before
// each): what is scored and summarized.
func plainText(text string, p piece) string {
	if len(p.markers) == 0 {
		return text[p.start:p.end]
	}
	var b strings.Builder
	b.Grow(p.end - p.start)
	last := p.start
	for _, m := range p.markers {
		b.WriteString(trimRightBlanks(text[last:m.Start]))
		last = m.End
	}
	b.WriteString(text[last:p.end])
	return b.String()
}

func trimRightBlanks(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
