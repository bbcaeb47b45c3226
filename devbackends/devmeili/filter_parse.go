package devmeili

import (
	"fmt"
	"strings"
	"unicode"
)

// The filter language of Meilisearch (docs/backends.md, Meilisearch wire
// details: Filter language), parsed by hand:
//
//	expr    = and ("OR" and)*
//	and     = not ("AND" not)*
//	not     = "NOT" not | primary
//	primary = "(" expr ")" | geo | attr op value | attr value "TO" value
//	        | attr ["NOT"] "IN" "[" value ("," value)* [","] "]"
//	        | attr ["NOT"] "EXISTS" | attr "IS" ["NOT"] ("NULL" | "EMPTY")
//	        | attr ["NOT"] "STARTS" "WITH" value
//
// Keywords are upper case only; values are bare words or quoted strings.

// maxFilterDepth bounds nesting as the engine does, so a hostile filter cannot
// exhaust the stack.
const maxFilterDepth = 150

const invalidPrimaryMsg = "Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, `_geoRadius`, `_geoBoundingBox` or `_geoPolygon` at `%s`."

// filterKeywords cannot be bare values or attribute names; quote them.
var filterKeywords = map[string]bool{
	"OR": true, "AND": true, "NOT": true, "TO": true, "IN": true, "EXISTS": true,
	"IS": true, "NULL": true, "EMPTY": true, "CONTAINS": true, "STARTS": true,
}

var geoFunctions = map[string]bool{"_geoRadius": true, "_geoBoundingBox": true, "_geoPolygon": true}

// span is a piece of a filter with its rune offsets in src, so errors can
// point at it the way the engine does ("\n<start>:<end> <filter>").
type span struct {
	text       string
	start, end int
	src        string
}

// filterError is a filter problem. Positioned errors end with the location
// suffix; type errors of the JSON filter value do not.
type filterError struct {
	featureGated bool // CONTAINS: the engine answers feature_not_enabled
	msg          string
	positioned   bool
	start, end   int
	src          string
}

func (e *filterError) message() string {
	if !e.positioned {
		return e.msg
	}
	return fmt.Sprintf("%s\n%d:%d %s", e.msg, e.start+1, e.end+1, e.src)
}

type filterParser struct {
	src   []rune
	text  string
	pos   int
	depth int
}

// parseFilterString parses one filter expression; blank input means no filter.
func parseFilterString(s string) (filterNode, *filterError) {
	p := &filterParser{src: []rune(s), text: s}
	p.skipWS()
	if p.pos == len(p.src) {
		return nil, nil
	}
	node, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos < len(p.src) {
		return nil, p.errAt(p.pos, len(p.src),
			"Found unexpected characters at the end of the filter: `%s`. You probably forgot an `OR` or an `AND` rule.", p.rest(p.pos))
	}
	return node, nil
}

func (p *filterParser) errAt(start, end int, format string, args ...any) *filterError {
	return &filterError{msg: fmt.Sprintf(format, args...), positioned: true, start: start, end: end, src: p.text}
}

func (p *filterParser) rest(from int) string { return string(p.src[from:]) }

func (p *filterParser) skipWS() {
	for p.pos < len(p.src) && unicode.IsSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *filterParser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func isValueRune(r rune) bool {
	return !unicode.IsSpace(r) && !strings.ContainsRune(`()[],=<>!'"`, r)
}

// peekWord returns the bare word after any whitespace, without consuming it.
func (p *filterParser) peekWord() (word string, start, end int) {
	start = p.pos
	for start < len(p.src) && unicode.IsSpace(p.src[start]) {
		start++
	}
	end = start
	for end < len(p.src) && isValueRune(p.src[end]) {
		end++
	}
	return string(p.src[start:end]), start, end
}

func (p *filterParser) acceptKeyword(kw string) bool {
	if w, _, end := p.peekWord(); w == kw {
		p.pos = end
		return true
	}
	return false
}

func (p *filterParser) acceptOp(op string) bool {
	p.skipWS()
	if strings.HasPrefix(p.rest(p.pos), op) {
		p.pos += len([]rune(op))
		return true
	}
	return false
}

func (p *filterParser) enter() *filterError {
	p.depth++
	if p.depth > maxFilterDepth {
		return p.errAt(p.pos, len(p.src),
			"The filter exceeded the maximum depth limit. Try rewriting the filter so that it contains fewer nested conditions.")
	}
	return nil
}

func (p *filterParser) parseOr() (filterNode, *filterError) {
	return p.parseChain("OR", p.parseAnd, func(c []filterNode) filterNode { return orNode{c} })
}

func (p *filterParser) parseAnd() (filterNode, *filterError) {
	return p.parseChain("AND", p.parseNot, func(c []filterNode) filterNode { return andNode{c} })
}

// parseChain parses operand (kw operand)* and joins two or more operands.
func (p *filterParser) parseChain(kw string, operand func() (filterNode, *filterError), join func([]filterNode) filterNode) (filterNode, *filterError) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	children := []filterNode{first}
	for p.acceptKeyword(kw) {
		next, err := operand()
		if err != nil {
			return nil, err
		}
		children = append(children, next)
	}
	if len(children) == 1 {
		return first, nil
	}
	return join(children), nil
}

func (p *filterParser) parseNot() (filterNode, *filterError) {
	if !p.acceptKeyword("NOT") {
		return p.parsePrimary()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	child, err := p.parseNot()
	p.depth--
	if err != nil {
		return nil, err
	}
	return notNode{child}, nil
}

func (p *filterParser) parsePrimary() (filterNode, *filterError) {
	p.skipWS()
	start := p.pos
	if p.peek() == '(' {
		p.pos++
		if err := p.enter(); err != nil {
			return nil, err
		}
		node, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.peek() != ')' {
			return nil, p.errAt(start, len(p.src),
				"Expression `%s` is missing the following closing delimiter: `)`.", p.rest(start))
		}
		p.pos++
		p.depth--
		return node, nil
	}
	if w, _, _ := p.peekWord(); geoFunctions[w] {
		return p.parseGeo()
	}
	return p.parseCondition(start)
}

// parseGeo skips over a geo function call: this index has no _geo field, so
// the call only needs to parse far enough to be reported as not filterable.
func (p *filterParser) parseGeo() (filterNode, *filterError) {
	w, start, end := p.peekWord()
	p.pos = end
	p.skipWS()
	if p.peek() != '(' {
		return nil, p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
	}
	depth := 0
	for ; p.pos < len(p.src); p.pos++ {
		switch p.src[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			p.pos++
			return geoNode{name: span{text: w, start: start, end: end, src: p.text}}, nil
		}
	}
	return nil, p.errAt(start, len(p.src),
		"Expression `%s` is missing the following closing delimiter: `)`.", p.rest(start))
}
