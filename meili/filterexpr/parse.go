package filterexpr

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

// MaxDepth is the engine's bound on nesting (NOT and parentheses), so a
// hostile filter cannot exhaust the stack.
const MaxDepth = 150

const invalidPrimaryMsg = "Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, `_geoRadius`, `_geoBoundingBox` or `_geoPolygon` at `%s`."

// filterKeywords cannot be bare values or attribute names; quote them.
var filterKeywords = map[string]bool{
	"OR": true, "AND": true, "NOT": true, "TO": true, "IN": true, "EXISTS": true,
	"IS": true, "NULL": true, "EMPTY": true, "CONTAINS": true, "STARTS": true, "WITH": true,
}

var geoFunctions = map[string]bool{"_geoRadius": true, "_geoBoundingBox": true, "_geoPolygon": true}

// Parser parses filters within its bounds; the zero Parser has the
// engine's (MaxDepth, no length limit).
type Parser struct {
	// MaxDepth bounds nesting (NOT and parentheses); 0 is MaxDepth.
	MaxDepth int
	// MaxBytes bounds each filter string's length; 0 is no bound.
	MaxBytes int
}

type parser struct {
	src      []rune
	text     string
	pos      int
	depth    int
	maxDepth int
}

// ParseValue parses a string, array or nil filter with the engine's
// bounds (Parser.ParseValue).
func ParseValue(v any) (Node, *Error) { return Parser{}.ParseValue(v) }

// Parse parses one filter expression; blank input means no filter.
func (c Parser) Parse(s string) (Node, *Error) {
	if c.MaxBytes > 0 && len(s) > c.MaxBytes {
		return nil, &Error{Msg: fmt.Sprintf("The filter is longer than %d bytes.", c.MaxBytes)}
	}
	p := &parser{src: []rune(s), text: s, maxDepth: c.MaxDepth}
	if p.maxDepth <= 0 {
		p.maxDepth = MaxDepth
	}
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

func (p *parser) errAt(start, end int, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Positioned: true, Start: start, End: end, Src: p.text}
}

func (p *parser) rest(from int) string { return string(p.src[from:]) }

func (p *parser) skipWS() {
	for p.pos < len(p.src) && unicode.IsSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *parser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func isValueRune(r rune) bool {
	return !unicode.IsSpace(r) && !strings.ContainsRune(`()[],=<>!'"`, r)
}

// peekWord returns the bare word after any whitespace, without consuming it.
func (p *parser) peekWord() (word string, start, end int) {
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

func (p *parser) acceptKeyword(kw string) bool {
	if w, _, end := p.peekWord(); w == kw {
		p.pos = end
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	p.skipWS()
	i := p.pos
	for _, r := range op {
		if i >= len(p.src) || p.src[i] != r {
			return false
		}
		i++
	}
	p.pos = i
	return true
}

func (p *parser) enter() *Error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.errAt(p.pos, len(p.src),
			"The filter exceeded the maximum depth limit. Try rewriting the filter so that it contains fewer nested conditions.")
	}
	return nil
}

func (p *parser) parseOr() (Node, *Error) {
	return p.parseChain("OR", p.parseAnd, func(c []Node) Node { return Or{c} })
}

func (p *parser) parseAnd() (Node, *Error) {
	return p.parseChain("AND", p.parseNot, func(c []Node) Node { return And{c} })
}

// parseChain parses operand (kw operand)* and joins two or more operands.
func (p *parser) parseChain(kw string, operand func() (Node, *Error), join func([]Node) Node) (Node, *Error) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	children := []Node{first}
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

func (p *parser) parseNot() (Node, *Error) {
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
	return Not{child}, nil
}

func (p *parser) parsePrimary() (Node, *Error) {
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
func (p *parser) parseGeo() (Node, *Error) {
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
			return Geo{Name: Span{Text: w, Start: start, End: end, Src: p.text}}, nil
		}
	}
	return nil, p.errAt(start, len(p.src),
		"Expression `%s` is missing the following closing delimiter: `)`.", p.rest(start))
}
