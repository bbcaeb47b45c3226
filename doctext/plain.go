package doctext

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// tagLike is what still looks like an HTML or JSX tag in text after the
// parsers: a tag CommonMark does not read as HTML (<Tabs.Tab>, a prop
// spanning lines it gave up on). A "\<" escapes it.
var tagLike = regexp.MustCompile(`(^|[^\\])</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>`)

// plain drops tag-like markup from raw text (before its entities are
// decoded: an escaped &lt;tag&gt; is text the author wrote).
func plain(raw []byte) string {
	s := string(raw)
	if !strings.Contains(s, "<") {
		return s
	}
	return stripMarkup(s)
}

// stripMarkup removes every tag-like run from s. Spaces RE2's \s does not
// know (\v, U+0085, U+00A0, ...) become spaces first: collapseSpaces folds
// them later, and "<A\v>" must not turn into "<A >" after stripping.
func stripMarkup(s string) string {
	s = strings.Map(plainSpace, s)
	for i := 0; i < 4 && tagLike.MatchString(s); i++ {
		s = tagLike.ReplaceAllString(s, "$1 ")
	}
	return s
}

// collapseSpaces folds runs of spaces and tabs into one space and trims
// each line; line breaks stay.
func collapseSpaces(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// blockElements end a paragraph of an HTML block's text.
var blockElements = map[string]bool{"p": true, "div": true, "li": true, "tr": true, "br": true, "h1": true,
	"h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "table": true, "ul": true, "ol": true,
	"dd": true, "dt": true, "details": true, "summary": true, "section": true, "blockquote": true}

// htmlText is the text of an HTML block: tags dropped but for the props a
// reader sees, <script> and <style> bodies and comments dropped, entities
// decoded, a <pre> kept as a code block.
func htmlText(raw string) string {
	z := html.NewTokenizer(strings.NewReader(raw))
	var out []string
	var cur, pre strings.Builder
	flush := func() {
		if t := collapseSpaces(strings.ReplaceAll(cur.String(), "\n", " ")); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	skip, inPre := "", 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := string(z.Raw())
		tok := z.Token()
		name := strings.ToLower(tok.Data)
		switch {
		case skip != "":
			if tt == html.EndTagToken && name == skip {
				skip = ""
			}
		case tt == html.StartTagToken && (name == "script" || name == "style"):
			skip = name
		case tt == html.StartTagToken && name == "pre":
			flush()
			inPre++
		case tt == html.EndTagToken && name == "pre" && inPre > 0:
			if inPre--; inPre == 0 {
				out = append(out, codeBlock("", pre.String()))
				pre.Reset()
			}
		case tt == html.TextToken && inPre > 0:
			pre.WriteString(tok.Data)
		case tt == html.TextToken:
			cur.WriteString(html.UnescapeString(stripMarkup(raw)))
		case tt == html.StartTagToken || tt == html.SelfClosingTagToken:
			if blockElements[name] {
				flush()
			}
			cur.WriteString(" " + attrText(tok) + " ")
		case tt == html.EndTagToken && blockElements[name]:
			flush()
		}
	}
	if pre.Len() > 0 {
		out = append(out, codeBlock("", pre.String()))
	}
	flush()
	var kept []string
	for _, p := range out {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// attrText is the kept props of an HTML tag (the tokenizer lower-cases
// names, so a JSX <Card title> is read here too).
func attrText(tok html.Token) string {
	t := tag{name: tok.Data}
	for _, a := range tok.Attr {
		t.setAttr(a.Key, a.Val)
	}
	if strings.HasSuffix(strings.ToLower(t.name), "field") {
		t.name = "Field"
	}
	return t.keptText()
}

// plainSpace maps every Unicode space but a line break to ' '.
func plainSpace(r rune) rune {
	if r != '\n' && unicode.IsSpace(r) {
		return ' '
	}
	return r
}
