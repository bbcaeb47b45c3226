package doctext

import (
	"html"
	"strings"
)

// tag is one HTML or JSX tag as scanTag read it.
type tag struct {
	name                 string
	closing, selfClosing bool
	attrs                map[string]string // string values only
}

// startsTag reports whether c, after a '<', can start a tag: a letter, '/'
// (closing), '>' (a JSX fragment) or '!' (a comment).
func startsTag(c byte) bool {
	return c == '/' || c == '>' || c == '!' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// scanTag reads the tag at s[0] ('<'): its length, 0 when s does not start
// a tag, -1 when the tag is still open at the end of s. JSX attribute
// values may be quoted strings or {expressions}; a comment <!-- --> is a
// tag without a name.
func scanTag(s string) (tag, int) {
	if strings.HasPrefix(s, "<!--") {
		end := strings.Index(s, "-->")
		if end < 0 {
			return tag{}, -1
		}
		return tag{}, end + 3
	}
	var t tag
	i := 1
	if i < len(s) && s[i] == '/' {
		t.closing = true
		i++
	}
	start := i
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	t.name = s[start:i]
	if t.name == "" && !(i < len(s) && s[i] == '>') {
		return tag{}, 0 // "<!x", "< b": not a tag
	}
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return tag{}, -1
		}
		switch {
		case s[i] == '>':
			return t, i + 1
		case strings.HasPrefix(s[i:], "/>"):
			t.selfClosing = true
			return t, i + 2
		case s[i] == '{': // a spread {...props}
			end := matchBrace(s[i:])
			if end < 0 {
				return tag{}, -1
			}
			i += end + 1
		case isNameByte(s[i]):
			n := t.readAttr(s[i:])
			if n < 0 {
				return tag{}, -1
			}
			i += n
		default:
			return tag{}, 0
		}
	}
}

// readAttr reads name[=value] at s[0], recording string values; -1 when
// the value is still open at the end of s.
func (t *tag) readAttr(s string) int {
	i := 0
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	name := s[:i]
	j := skipSpace(s, i)
	if j >= len(s) || s[j] != '=' {
		return i
	}
	j = skipSpace(s, j+1)
	if j >= len(s) {
		return -1
	}
	switch c := s[j]; c {
	case '"', '\'':
		end := strings.IndexByte(s[j+1:], c)
		if end < 0 {
			return -1
		}
		t.setAttr(name, html.UnescapeString(s[j+1:j+1+end]))
		return j + end + 2
	case '{':
		end := matchBrace(s[j:])
		if end < 0 {
			return -1
		}
		if v := strings.TrimSpace(s[j+1 : j+end]); len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			t.setAttr(name, v[1:len(v)-1])
		}
		return j + end + 1
	default:
		k := j
		for k < len(s) && s[k] != '>' && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' {
			k++
		}
		t.setAttr(name, s[j:k])
		return k
	}
}

func (t *tag) setAttr(name, v string) {
	if t.attrs == nil {
		t.attrs = map[string]string{}
	}
	t.attrs[name] = v
}

// keptText is the text of the props a reader of the page sees: a title
// (Card, Tab, Accordion, Step, admonition), a TabItem's label, and an API
// field's name and type (ParamField, ResponseField); other props (href,
// icon, value, className, ...) are not text.
func (t tag) keptText() string {
	if t.closing {
		return ""
	}
	if t.name == "TabItem" && t.attrs["label"] == "" {
		return stripMarkup(strings.TrimSpace(t.attrs["value"])) // the tab's label when it has none
	}
	var parts []string
	for _, k := range keptProps(t.name) {
		if v := strings.TrimSpace(t.attrs[k]); v != "" {
			parts = append(parts, v)
		}
	}
	return stripMarkup(strings.Join(parts, " "))
}

func keptProps(name string) []string {
	if strings.HasSuffix(name, "Field") {
		return []string{"path", "query", "body", "header", "name", "type"}
	}
	return []string{"title", "label"}
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == ':' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
