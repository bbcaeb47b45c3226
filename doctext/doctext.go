// Package doctext turns a docs page's Markdown, MDX or HTML into the text
// the backends index and the gate shows: paragraphs of plain text, code
// blocks kept as code, and the page split into sections on its headings,
// each with the anchor the site generator gives it. No markup survives
// outside code: HTML and JSX tags, <script>/<style> bodies, comments, MDX
// import/export lines and {/* */} comments are dropped, entities decoded,
// and the text inside components (a Card's title and body, a Note, a Tab's
// panel) kept.
//
// Markdown is parsed by goldmark (github.com/yuin/goldmark): a maintained,
// CommonMark-compliant parser with an AST, already in the module graph
// through Caddy. MDX, which no Go library parses, is first rewritten into
// CommonMark by a line scanner (mdx.go) that knows JSX tags, expressions and
// ES module lines.
package doctext

import (
	"strings"
)

// Generator names the site generator whose heading anchors (and extra
// syntax) a page follows.
type Generator string

// The generators whose anchor rules doctext knows.
const (
	// Docusaurus anchors headings with github-slugger, as GitHub does.
	Docusaurus Generator = "docusaurus"
	// MkDocs anchors with Python-Markdown's toc slugify and reads
	// admonitions (!!! note) and content tabs (=== "Tab").
	MkDocs Generator = "mkdocs"
	// Mintlify anchors keep non-ASCII punctuation github-slugger drops.
	Mintlify Generator = "mintlify"
	// Markdown is a plain tree, read with GitHub's rules.
	Markdown Generator = "markdown"
)

// Options say how to read one page.
type Options struct {
	// MDX reads the page as MDX (a .mdx file): JSX tags, expressions and
	// import/export lines.
	MDX bool
	// Generator chooses the anchor rule and extra syntax (default Markdown).
	Generator Generator
}

// Heading is one heading of a page.
type Heading struct {
	Level int
	Text  string
	// Anchor is the fragment the site gives the heading: an explicit
	// {#id}, else the generator's slug, made unique within the page.
	Anchor string
}

// Section is a heading and the text under it up to the next heading; the
// text before the first heading is a section without one.
type Section struct {
	Heading *Heading
	// Blocks are the section's paragraphs, list items, table rows and
	// code blocks (fenced, with their info string), in order.
	Blocks []string
}

// Doc is a page's text, split on its headings.
type Doc struct {
	Sections []Section
}

// Extract reads one page body (front matter already removed).
func Extract(src string, o Options) Doc {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ToValidUTF8(src, "\uFFFD")
	if o.MDX {
		src = rewriteMDX(src)
	}
	src = rewriteAdmonitions(src, o.Generator)
	return render(src, o.Generator)
}

// Headings lists the headings' text, in order.
func (d Doc) Headings() []string {
	var out []string
	for _, s := range d.Sections {
		if s.Heading != nil {
			out = append(out, s.Heading.Text)
		}
	}
	return out
}

// Title is the text of the first level-1 heading, "" without one.
func (d Doc) Title() string {
	for _, s := range d.Sections {
		if s.Heading != nil && s.Heading.Level == 1 {
			return s.Heading.Text
		}
	}
	return ""
}

// Content is the page as the backends hold it: each heading on its own
// line as "## Text" (the level's number of #, which RAGFlow's chunker and
// the gate's citation anchors read), followed by " {#anchor}" only when
// the site's anchor is not the one GitHub's rule gives the text; blocks
// separated by a blank line.
func (d Doc) Content() string {
	var b strings.Builder
	for _, s := range d.Sections {
		if h := s.Heading; h != nil {
			sep(&b)
			b.WriteString(strings.Repeat("#", h.Level))
			b.WriteByte(' ')
			b.WriteString(h.Text)
			if h.Anchor != GitHubSlug(h.Text) && h.Level > 1 {
				b.WriteString(" {#" + h.Anchor + "}")
			}
		}
		for _, blk := range s.Blocks {
			sep(&b)
			b.WriteString(blk)
		}
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

func sep(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
}
