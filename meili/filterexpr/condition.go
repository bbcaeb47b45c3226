package filterexpr

import "strings"

// comparisonOps are tried longest first so ">=" is not read as ">".
var comparisonOps = []string{"!=", ">=", "<=", "=", ">", "<"}

// parseCondition parses "attr <operator> ..." once the primary is known not
// to be a group or a geo function.
func (p *parser) parseCondition(start int) (Node, *Error) {
	attr, err := p.parseValue(true)
	if err != nil {
		return nil, err
	}
	if attr == nil {
		return nil, p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
	}
	for _, op := range comparisonOps {
		if p.acceptOp(op) {
			v, err := p.expectValue()
			if err != nil {
				return nil, err
			}
			if op == "!=" {
				return Cond{Attr: *attr, Op: "=", Negated: true, Values: []string{v.Text}}, nil
			}
			return Cond{Attr: *attr, Op: op, Values: []string{v.Text}}, nil
		}
	}
	if p.acceptKeyword("NOT") {
		return p.parseNegatedOperator(start, *attr)
	}
	return p.parseKeywordOperator(start, *attr)
}

// parseKeywordOperator handles IN, EXISTS, IS ..., STARTS WITH, CONTAINS and
// the range form "attr lo TO hi".
func (p *parser) parseKeywordOperator(start int, attr Span) (Node, *Error) {
	switch w, kwStart, kwEnd := p.peekWord(); w {
	case "IN":
		p.pos = kwEnd
		return p.parseInList(attr)
	case "EXISTS":
		p.pos = kwEnd
		return Cond{Attr: attr, Op: "EXISTS"}, nil
	case "IS":
		p.pos = kwEnd
		return p.parseIs(start, attr)
	case "STARTS":
		p.pos = kwEnd
		return p.parseStartsWith(start, attr)
	case "CONTAINS":
		return nil, p.containsError(kwStart, kwEnd)
	}
	save := p.pos
	lo, err := p.parseValue(false)
	if err == nil && lo != nil && p.acceptKeyword("TO") {
		hi, err := p.expectValue()
		if err != nil {
			return nil, err
		}
		return Cond{Attr: attr, Op: "TO", Values: []string{lo.Text, hi.Text}}, nil
	}
	p.pos = save
	return nil, p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
}

// parseNegatedOperator handles "attr NOT IN|EXISTS|STARTS WITH|CONTAINS".
func (p *parser) parseNegatedOperator(start int, attr Span) (Node, *Error) {
	var inner Node
	var err *Error
	switch w, kwStart, kwEnd := p.peekWord(); w {
	case "IN":
		p.pos = kwEnd
		inner, err = p.parseInList(attr)
	case "EXISTS":
		p.pos = kwEnd
		inner = Cond{Attr: attr, Op: "EXISTS"}
	case "STARTS":
		p.pos = kwEnd
		inner, err = p.parseStartsWith(start, attr)
	case "CONTAINS":
		err = p.containsError(kwStart, kwEnd)
	default:
		err = p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
	}
	if err != nil {
		return nil, err
	}
	return negated(inner), nil
}

// negated is c written with NOT ("NOT IN", "NOT EXISTS", "IS NOT NULL"):
// the complement of c.
func negated(n Node) Node {
	c := n.(Cond) // the negated operators all parse to one condition
	c.Negated = true
	return c
}

func (p *parser) parseIs(start int, attr Span) (Node, *Error) {
	negate := p.acceptKeyword("NOT")
	var node Node
	switch {
	case p.acceptKeyword("NULL"):
		node = Cond{Attr: attr, Op: "IS NULL"}
	case p.acceptKeyword("EMPTY"):
		node = Cond{Attr: attr, Op: "IS EMPTY"}
	default:
		return nil, p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
	}
	if negate {
		return negated(node), nil
	}
	return node, nil
}

func (p *parser) parseStartsWith(start int, attr Span) (Node, *Error) {
	if !p.acceptKeyword("WITH") {
		return nil, p.errAt(start, len(p.src), invalidPrimaryMsg, p.rest(start))
	}
	v, err := p.expectValue()
	if err != nil {
		return nil, err
	}
	return Cond{Attr: attr, Op: "STARTS WITH", Values: []string{v.Text}}, nil
}

// containsError: CONTAINS is gated behind an experimental feature in the
// engine (docs/backends.md, Meilisearch wire details: Filter language), and
// this server does not offer experimental features.
func (p *parser) containsError(start, end int) *Error {
	e := p.errAt(start, end, "Using `CONTAINS` in a filter requires enabling the `contains filter` experimental feature. See https://github.com/orgs/meilisearch/discussions/763")
	e.FeatureGated = true
	return e
}

func (p *parser) parseInList(attr Span) (Node, *Error) {
	p.skipWS()
	open := p.pos
	if p.peek() != '[' {
		return nil, p.errAt(p.pos, len(p.src), "Expected `[` after `IN` keyword.")
	}
	p.pos++
	var values []string
	for {
		p.skipWS()
		if p.peek() == ']' {
			p.pos++
			return Cond{Attr: attr, Op: "IN", Values: values}, nil
		}
		v, err := p.expectValue()
		if err != nil {
			return nil, err
		}
		values = append(values, v.Text)
		p.skipWS()
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
		default:
			return nil, p.errAt(open, len(p.src), "Expected matching `]` after the list of field names given to `IN[`")
		}
	}
}

// expectValue parses a value that must be there.
func (p *parser) expectValue() (*Span, *Error) {
	v, err := p.parseValue(true)
	if err != nil {
		return nil, err
	}
	if v == nil {
		p.skipWS()
		if p.pos == len(p.src) {
			return nil, p.errAt(p.pos, p.pos, "Was expecting a value but instead got nothing.")
		}
		return nil, p.errAt(p.pos, len(p.src), "Was expecting a value but instead got `%s`.", p.rest(p.pos))
	}
	return v, nil
}

// parseValue reads a bare word or a quoted string; nil when there is none.
// A bare keyword is an error when keywordIsError, else simply "no value".
func (p *parser) parseValue(keywordIsError bool) (*Span, *Error) {
	p.skipWS()
	if q := p.peek(); q == '"' || q == '\'' {
		return p.parseQuoted(q)
	}
	w, start, end := p.peekWord()
	if w == "" {
		return nil, nil
	}
	if filterKeywords[w] {
		if !keywordIsError {
			return nil, nil
		}
		return nil, p.errAt(start, end,
			"Was expecting a value but instead got `%s`, which is a reserved keyword. To use `%s` as a field name or a value, surround it by quotes.", w, w)
	}
	p.pos = end
	return &Span{Text: w, Start: start, End: end, Src: p.text}, nil
}

// parseQuoted reads a string quoted by q where a backslash escapes the quote
// or another backslash.
func (p *parser) parseQuoted(q rune) (*Span, *Error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		r := p.src[p.pos]
		if r == '\\' && p.pos+1 < len(p.src) && (p.src[p.pos+1] == q || p.src[p.pos+1] == '\\') {
			b.WriteRune(p.src[p.pos+1])
			p.pos += 2
			continue
		}
		p.pos++
		if r == q {
			return &Span{Text: b.String(), Start: start + 1, End: p.pos - 1, Src: p.text}, nil
		}
		b.WriteRune(r)
	}
	return nil, p.errAt(start, len(p.src),
		"Expression `%s` is missing the following closing delimiter: `%c`.", p.rest(start), q)
}
