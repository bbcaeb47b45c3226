package meili

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// filterToken is one lexeme of a caller's filter: a quoted value (quoted
// set), or a word, an operator or punctuation.
type filterToken struct {
	text   string
	quoted bool
}

func (t filterToken) describe() string {
	if t.quoted {
		return "quoted value"
	}
	return fmt.Sprintf("%q", cut(t.text, 32))
}

// is reports an unquoted keyword or punctuation, case-insensitively for
// words as Meilisearch reads them.
func (t filterToken) is(word string) bool {
	return !t.quoted && strings.EqualFold(t.text, word)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lexFilter splits s into tokens: quoted strings ('…' or "…", with \
// escaping the next character), the operators = != ( ) [ ] , and words.
func lexFilter(s string) ([]filterToken, error) {
	var toks []filterToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			v, n, err := lexQuoted(s[i:])
			if err != nil {
				return nil, err
			}
			toks, i = append(toks, filterToken{text: v, quoted: true}), i+n
		case strings.HasPrefix(s[i:], "!="):
			toks, i = append(toks, filterToken{text: "!="}), i+2
		case strings.ContainsRune("=()[],", rune(c)):
			toks, i = append(toks, filterToken{text: string(c)}), i+1
		case strings.ContainsRune("<>!", rune(c)):
			return nil, errors.New("filter: only =, !=, IN and NOT IN compare values here")
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r\"'=!<>()[],", rune(s[j])) {
				j++
			}
			toks, i = append(toks, filterToken{text: s[i:j]}), j
		}
	}
	return toks, nil
}

func lexQuoted(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case q:
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, errors.New("filter: a quoted value is not closed")
}

// filterParser is a recursive-descent parser of Meilisearch's filter
// grammar (the subset ClientFilter accepts), rendering as it parses.
type filterParser struct {
	toks       []filterToken
	pos        int
	conditions int
}

func (p *filterParser) peek() (filterToken, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return filterToken{}, false
}

func (p *filterParser) next() (filterToken, error) {
	t, ok := p.peek()
	if !ok {
		return t, errors.New("filter ends too early")
	}
	p.pos++
	return t, nil
}

func (p *filterParser) or(depth int) (string, error) {
	return p.joined(depth, "OR", p.and)
}

func (p *filterParser) and(depth int) (string, error) {
	return p.joined(depth, "AND", p.not)
}

// joined parses operands separated by word (AND or OR), each rendered in
// parentheses so the rendering keeps the parsed grouping.
func (p *filterParser) joined(depth int, word string, operand func(int) (string, error)) (string, error) {
	first, err := operand(depth)
	if err != nil {
		return "", err
	}
	parts := []string{first}
	for {
		t, ok := p.peek()
		if !ok || !t.is(word) {
			break
		}
		p.pos++
		next, err := operand(depth)
		if err != nil {
			return "", err
		}
		parts = append(parts, next)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return "(" + strings.Join(parts, ") "+word+" (") + ")", nil
}

func (p *filterParser) not(depth int) (string, error) {
	if depth > maxClientFilterDepth {
		return "", fmt.Errorf("filter nests deeper than %d levels", maxClientFilterDepth)
	}
	t, ok := p.peek()
	switch {
	case !ok:
		return "", errors.New("filter ends too early")
	case t.is("NOT"):
		p.pos++
		inner, err := p.not(depth + 1)
		return "NOT (" + inner + ")", err
	case t.is("("):
		p.pos++
		inner, err := p.or(depth + 1)
		if err != nil {
			return "", err
		}
		// The group's parentheses are not kept: joined and NOT put every
		// operand in parentheses, so the rendering keeps the grouping and
		// renders to itself when parsed again.
		return inner, p.expect(")")
	}
	return p.condition()
}

func (p *filterParser) expect(text string) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	if !t.is(text) {
		return fmt.Errorf("filter: expected %q, found %s", text, t.describe())
	}
	return nil
}

// condition is attr = v, attr != v, attr IN [..] or attr NOT IN [..].
func (p *filterParser) condition() (string, error) {
	if p.conditions++; p.conditions > maxClientConditions {
		return "", fmt.Errorf("filter has more than %d conditions", maxClientConditions)
	}
	attr, err := p.attribute()
	if err != nil {
		return "", err
	}
	op, err := p.next()
	if err != nil {
		return "", err
	}
	switch {
	case op.is("=") || op.is("!="):
		v, err := p.value()
		return attr + " " + op.text + " " + Quote(v), err
	case op.is("IN"):
		list, err := p.list()
		return attr + " IN " + list, err
	case op.is("NOT"):
		if err := p.expect("IN"); err != nil {
			return "", err
		}
		list, err := p.list()
		return attr + " NOT IN " + list, err
	}
	return "", fmt.Errorf("filter: expected =, !=, IN or NOT IN after %s, found %s", attr, op.describe())
}

func (p *filterParser) attribute() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	if i := slices.Index(ClientFilterAttributes, t.text); i >= 0 {
		return ClientFilterAttributes[i], nil
	}
	return "", fmt.Errorf("filter: %s is not a filterable attribute; filterable: %s",
		t.describe(), strings.Join(ClientFilterAttributes, ", "))
}

// value is a quoted value or a bare word that is not a keyword.
func (p *filterParser) value() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	if t.quoted {
		return t.text, nil
	}
	for _, kw := range []string{"AND", "OR", "NOT", "IN", "(", ")", "[", "]", ",", "=", "!="} {
		if t.is(kw) {
			return "", fmt.Errorf("filter: expected a value, found %s", t.describe())
		}
	}
	return t.text, nil
}

func (p *filterParser) list() (string, error) {
	if err := p.expect("["); err != nil {
		return "", err
	}
	var vals []string
	for {
		if t, ok := p.peek(); ok && t.is("]") && len(vals) == 0 {
			p.pos++
			return quoteList(vals), nil
		}
		v, err := p.value()
		if err != nil {
			return "", err
		}
		vals = append(vals, v)
		t, err := p.next()
		if err != nil {
			return "", err
		}
		if t.is("]") {
			return quoteList(vals), nil
		}
		if !t.is(",") {
			return "", fmt.Errorf("filter: expected , or ] in a list, found %s", t.describe())
		}
	}
}
