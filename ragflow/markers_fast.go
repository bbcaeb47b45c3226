package ragflow

import "strconv"

// bracketMarker reads the ASCII marker forms that open with "[" at
// text[i] without the regexp: "[ID:n]" (any case, blanks around the
// parts, several numbers "[ID:0, ID:2]") and, when all, the bare "[n]".
// These are nearly every marker a model writes, and matching the anchored
// alternation at each "[" was most of findMarkers. It answers exactly as
// markerAt/allMarkerAt would there (FuzzBracketMarkers holds it to them):
// decided is false, and the caller asks the regexp, as soon as the text
// holds a byte outside ASCII before the form is settled (the full-width
// "：" and "，" the patterns also accept). mk is only meaningful when
// matched; its End is where the match ends.
func bracketMarker(text string, i int, all bool) (mk Marker, matched, decided bool) {
	p := &markerParser{text: text, pos: i + 1}
	p.blanks()
	bare := p.at(isDigit)
	if !bare && !p.idLabel() {
		return mk, false, !p.nonASCII
	}
	if bare && !all {
		return mk, false, true
	}
	if !p.list(!bare) {
		return mk, false, !p.nonASCII
	}
	p.blanks()
	if p.pos >= len(text) || text[p.pos] != ']' {
		return mk, false, !p.nonASCII
	}
	return Marker{Start: i, End: p.pos + 1, Blocks: p.blocks, Bare: bare}, true, true
}

// markerParser walks one candidate marker; nonASCII is set when it met a
// byte it cannot decide on (one that starts a multi-byte rune).
type markerParser struct {
	text     string
	pos      int
	blocks   []int
	nonASCII bool
}

// blanks skips what \s matches: tab, newline, form feed, carriage return
// and space.
func (p *markerParser) blanks() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case '\t', '\n', '\f', '\r', ' ':
			p.pos++
		default:
			return
		}
	}
}

// at reports whether the byte at pos satisfies is; a non-ASCII byte there
// is noted.
func (p *markerParser) at(is func(byte) bool) bool {
	if p.pos >= len(p.text) {
		return false
	}
	c := p.text[p.pos]
	if c >= 0x80 {
		p.nonASCII = true
	}
	return is(c)
}

// idLabel reads "ID", blanks, ":" and blanks (case-insensitive ID).
func (p *markerParser) idLabel() bool {
	if !p.at(func(c byte) bool { return c == 'I' || c == 'i' }) {
		return false
	}
	p.pos++
	if !p.at(func(c byte) bool { return c == 'D' || c == 'd' }) {
		return false
	}
	p.pos++
	p.blanks()
	if !p.at(func(c byte) bool { return c == ':' }) {
		return false
	}
	p.pos++
	p.blanks()
	return true
}

// number reads \d+ into blocks (-1 for a number too large).
func (p *markerParser) number() bool {
	start := p.pos
	for p.pos < len(p.text) && isDigit(p.text[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		p.at(isDigit) // note a non-ASCII byte where the digits should be
		return false
	}
	n, err := strconv.Atoi(p.text[start:p.pos])
	if err != nil {
		n = -1
	}
	p.blocks = append(p.blocks, n)
	return true
}

// list reads \d+ and then any ", n" (", ID: n" too when ids): the
// patterns' number list, greedy, ending after its last number.
func (p *markerParser) list(ids bool) bool {
	if !p.number() {
		return false
	}
	for {
		end := p.pos
		p.blanks()
		if !p.at(func(c byte) bool { return c == ',' }) {
			p.pos = end
			return true
		}
		p.pos++
		p.blanks()
		if ids && p.at(func(c byte) bool { return c == 'I' || c == 'i' }) {
			if !p.idLabel() {
				return false
			}
		}
		if !p.number() {
			return false
		}
	}
}
