package doctext

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the parser: CommonMark with GitHub's tables,
// strikethrough, task lists and autolinks, and definition lists and
// footnotes (MkDocs and Docusaurus sites use both).
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList, extension.Footnote))

// renderer walks one page's AST, collecting sections.
type renderer struct {
	src   []byte
	doc   Doc
	slugs slugger
	// skip is the raw-text element (script, style) whose body is being
	// dropped, between an inline open tag and its closing tag.
	skip string
}

func render(src string, gen Generator) Doc {
	r := &renderer{src: []byte(src), slugs: slugger{gen: gen}}
	r.doc.Sections = []Section{{}}
	root := markdown.Parser().Parse(text.NewReader(r.src))
	r.blocks(root)
	if len(r.doc.Sections[0].Blocks) == 0 && len(r.doc.Sections) > 1 {
		r.doc.Sections = r.doc.Sections[1:]
	}
	return r.doc
}

// add appends a block of text to the current section.
func (r *renderer) add(block string) {
	if block = strings.TrimSpace(block); block != "" {
		s := &r.doc.Sections[len(r.doc.Sections)-1]
		s.Blocks = append(s.Blocks, block)
	}
}

// blocks renders the block children of n.
func (r *renderer) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.block(c)
	}
}

func (r *renderer) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Heading:
		r.heading(n)
	case *ast.Paragraph, *ast.TextBlock:
		r.add(r.inline(n))
	case *ast.FencedCodeBlock:
		r.add(codeBlock(string(n.Language(r.src)), r.lines(n)))
	case *ast.CodeBlock:
		r.add(codeBlock("", r.lines(n)))
	case *ast.HTMLBlock:
		r.add(htmlText(r.lines(n) + closure(n, r.src)))
	case *ast.List:
		r.list(n)
	case *east.Table:
		r.table(n)
	case *ast.ThematicBreak:
	default: // blockquote, definition list, footnotes, ...: their blocks
		if n.Type() == ast.TypeBlock && n.FirstChild() != nil && n.FirstChild().Type() == ast.TypeInline {
			r.add(r.inline(n))
			return
		}
		r.blocks(n)
	}
}

func (r *renderer) heading(n *ast.Heading) {
	raw := strings.TrimSpace(r.inline(n))
	textOnly, id, explicit := explicitID(raw)
	textOnly = strings.TrimSpace(strings.ReplaceAll(textOnly, "`", ""))
	if textOnly == "" && !explicit {
		return
	}
	if explicit {
		r.slugs.taken(id)
	} else {
		id = r.slugs.slug(textOnly)
	}
	h := &Heading{Level: n.Level, Text: textOnly, Anchor: id}
	r.doc.Sections = append(r.doc.Sections, Section{Heading: h})
}

// list renders the list as one block, an item a line (its own blocks
// joined by line breaks), "- " or "1. " first.
func (r *renderer) list(n *ast.List) {
	num := n.Start
	var items []string
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		sub := &renderer{src: r.src, doc: Doc{Sections: []Section{{}}}, slugs: r.slugs}
		sub.blocks(item)
		var parts []string
		for _, s := range sub.doc.Sections {
			parts = append(parts, s.Blocks...)
		}
		body := strings.Join(parts, "\n")
		if body == "" {
			continue
		}
		mark := "- "
		if n.IsOrdered() {
			mark = strconv.Itoa(num) + ". "
			num++
		}
		items = append(items, mark+body)
	}
	r.add(strings.Join(items, "\n"))
}

// table renders each row as one line, cells joined by " | ".
func (r *renderer) table(n *east.Table) {
	var rows []string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, strings.TrimSpace(r.inline(cell)))
		}
		if line := strings.Join(cells, " | "); strings.Trim(line, " |") != "" {
			rows = append(rows, line)
		}
	}
	r.add(strings.Join(rows, "\n"))
}

// lines is a block's raw lines.
func (r *renderer) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// closure is an HTML block's closing line, which goldmark keeps apart.
func closure(n *ast.HTMLBlock, src []byte) string {
	if n.HasClosure() {
		return string(n.ClosureLine.Value(src))
	}
	return ""
}

// codeBlock is a fenced block: code stays code, markup and all.
func codeBlock(lang, code string) string {
	code = strings.TrimRight(code, "\n")
	if strings.TrimSpace(code) == "" {
		return ""
	}
	fenceRun := "```"
	for strings.Contains(code, fenceRun) {
		fenceRun += "`"
	}
	return fenceRun + lang + "\n" + code + "\n" + fenceRun
}

// inline renders n's inline children as plain text.
func (r *renderer) inline(n ast.Node) string {
	var b inlineText
	r.inlines(&b, n)
	return collapseSpaces(b.String())
}

// inlineText gathers a run of inline text: source text is held raw until
// the run ends (a code span, a kept prop, the end), then stripped of
// tag-like markup and decoded. goldmark splits text at every "<" it could
// not read as a tag, so markup is only visible in the whole run, and an
// escaped &lt;tag&gt; must not be read as one.
type inlineText struct {
	out, raw strings.Builder
}

func (t *inlineText) source(s string) { t.raw.WriteString(s) }

func (t *inlineText) final(s string) {
	t.flush()
	t.out.WriteString(s)
}

func (t *inlineText) flush() {
	if t.raw.Len() > 0 {
		t.out.WriteString(decode(plain([]byte(t.raw.String()))))
		t.raw.Reset()
	}
}

// danglingTag is a tag's start left open at the end of a raw run.
var danglingTag = regexp.MustCompile(`<(/?[A-Za-z][\w.:-]*(?:\s[^<>]*)?)$`)

// openTagBefore drops the '<' of a tag left open just before a tag whose
// props are kept: "<A" + " Title " + ">" would read as a tag once joined.
func (t *inlineText) openTagBefore() {
	raw := t.raw.String()
	if fixed := danglingTag.ReplaceAllString(raw, "$1"); fixed != raw {
		t.raw.Reset()
		t.raw.WriteString(fixed)
	}
}

func (t *inlineText) String() string {
	t.flush()
	return t.out.String()
}

func (r *renderer) inlines(b *inlineText, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inlineNode(b, c)
	}
}

func (r *renderer) inlineNode(b *inlineText, n ast.Node) {
	switch n := n.(type) {
	case *ast.RawHTML:
		r.rawHTML(b, n)
		return
	case *ast.CodeSpan:
		if r.skip == "" {
			b.final(codeSpan(r.rawText(n)))
		}
		return
	case *ast.Image:
		return // alt text describes a picture the text does not show
	}
	if r.skip != "" {
		return
	}
	switch n := n.(type) {
	case *ast.Text:
		b.source(string(n.Value(r.src)))
		if n.HardLineBreak() || n.SoftLineBreak() {
			// The author's line breaks stay: chunkers and readers see the
			// source's lines. They stay inside the raw run, so "<A\\" and
			// "0>" either side of a hard break are stripped as one tag.
			b.source("\n")
		}
	case *ast.String:
		b.source(string(n.Value))
	case *ast.AutoLink:
		b.final(string(n.Label(r.src)))
	case *east.TaskCheckBox, *east.FootnoteLink, *east.FootnoteBacklink:
	default:
		r.inlines(b, n)
	}
}

// rawHTML drops an inline tag, keeping the props a reader sees and
// starting or ending the skip of a script or style body.
func (r *renderer) rawHTML(b *inlineText, n *ast.RawHTML) {
	var raw strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		raw.Write(seg.Value(r.src))
	}
	t, size := scanTag(raw.String())
	if size <= 0 {
		return
	}
	name := strings.ToLower(t.name)
	switch {
	case r.skip != "":
		if t.closing && name == r.skip {
			r.skip = ""
		}
	case !t.closing && !t.selfClosing && (name == "script" || name == "style"):
		r.skip = name
	case name == "br":
		b.final(" ")
	default:
		if kept := t.keptText(); kept != "" {
			b.openTagBefore()
			b.final(" " + kept + " ")
		}
		// Otherwise the text either side stays one raw run, stripped as
		// a whole when it ends: "<A" and ">" around a dropped <A> would
		// otherwise be stripped apart and join into "<A>".
	}
}

// rawText is the source text of an inline node's text children.
func (r *renderer) rawText(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(r.src))
		case *ast.String:
			b.Write(c.Value)
		}
	}
	return b.String()
}

// codeSpan writes inline code between backticks, as many as it needs.
func codeSpan(code string) string {
	fenceRun := "`"
	for strings.Contains(code, fenceRun) {
		fenceRun += "`"
	}
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") {
		code = " " + code + " "
	}
	return fenceRun + code + fenceRun
}

// decode resolves character references and backslash escapes, as an
// HTML renderer would.
func decode(s string) string {
	v := util.ResolveNumericReferences([]byte(s))
	v = util.ResolveEntityNames(v)
	return string(util.UnescapePunctuations(v))
}
