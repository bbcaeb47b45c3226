package doctext

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestMDXComponentsKeepTheirTextAndDropTheirMarkup(t *testing.T) {
	src := "import Tabs from '@theme/Tabs';\nexport const meta = {\n  a: 1,\n};\n\n" +
		"# Setup\n\n{/* hidden\nnote */}\n\n<CardGroup cols={2}>\n  <Card title=\"First card\" href=\"/one\" icon=\"star\">\n" +
		"    Body of the *first* card.\n  </Card>\n  <Card\n    title=\"Second card\"\n    href=\"/two\"\n  >\n    Body two.\n  </Card>\n</CardGroup>\n\n" +
		"<Note>\n  A note with [a link](http://x).\n</Note>\n\n<Tabs>\n  <TabItem value=\"a\" label=\"Tab A\">\n    ```js\n    const x = <div>hi</div>;\n    ```\n  </TabItem>\n</Tabs>\n\n" +
		"<script>alert(1)</script>\n<style>.x{}</style>\n\nValue {props.value} and{' '}more.\n"
	got := Extract(src, Options{MDX: true}).Content()
	want := "# Setup\n\nFirst card\n\nBody of the first card.\n\nSecond card\n\nBody two.\n\nA note with a link.\n\n" +
		"Tab A\n\n```js\nconst x = <div>hi</div>;\n```\n\nValue and more.\n"
	if got != want {
		t.Fatalf("content\n%s\nwant\n%s", got, want)
	}
}

func TestHTMLEntitiesScriptsAndCommentsInMarkdown(t *testing.T) {
	src := "Use <span id=\"x\"></span>&lt;hashed_password&gt; &amp; <kbd>Ctrl</kbd>.<script>var a = 1;</script>\n\n" +
		"<!-- a comment -->\n\n<div class=\"n\">\n<p>Para in <b>HTML</b> &copy;</p>\n<style>p{}</style>\n</div>\n\n" +
		"<pre>keep &lt;this&gt; as code</pre>\n"
	got := Extract(src, Options{}).Content()
	want := "Use <hashed_password> & Ctrl.\n\nPara in HTML ©\n\n```\nkeep <this> as code\n```\n"
	if got != want {
		t.Fatalf("content\n%q\nwant\n%q", got, want)
	}
}

func TestCodeStaysCode(t *testing.T) {
	src := "Run `go <build>` first.\n\n```html\n<div>&amp;</div>\n```\n\n    indented <b>code</b>\n"
	got := Extract(src, Options{}).Content()
	want := "Run `go <build>` first.\n\n```html\n<div>&amp;</div>\n```\n\n```\nindented <b>code</b>\n```\n"
	if got != want {
		t.Fatalf("content\n%q\nwant\n%q", got, want)
	}
}

func TestAnchorsFollowTheGenerator(t *testing.T) {
	src := "# Page\n\n## Foo & Bar - baz\n\n## Foo & Bar - baz\n\n## What’s next?\n\n## Custom {#my-id}\n\n## Ünïcode Name\n"
	cases := map[Generator][]string{
		Docusaurus: {"page", "foo--bar---baz", "foo--bar---baz-1", "whats-next", "my-id", "ünïcode-name"},
		Markdown:   {"page", "foo--bar---baz", "foo--bar---baz-1", "whats-next", "my-id", "ünïcode-name"},
		MkDocs:     {"page", "foo-bar-baz", "foo-bar-baz_1", "whats-next", "my-id", "unicode-name"},
		Mintlify:   {"page", "foo-bar-baz", "foo-bar-baz-1", "what’s-next", "my-id", "ünïcode-name"},
	}
	for gen, want := range cases {
		var got []string
		for _, s := range Extract(src, Options{Generator: gen}).Sections {
			got = append(got, s.Heading.Anchor)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s anchors %q, want %q", gen, got, want)
		}
	}
}

func TestContentNamesAnAnchorGitHubsRuleWouldMiss(t *testing.T) {
	d := Extract("# T\n\n## A b\n\ntext\n\n## A b\n\n## Foo & Bar\n", Options{Generator: MkDocs})
	want := "# T\n\n## A b\n\ntext\n\n## A b {#a-b_1}\n\n## Foo & Bar {#foo-bar}\n"
	if got := d.Content(); got != want {
		t.Fatalf("content %q, want %q", got, want)
	}
	if got := d.Headings(); !reflect.DeepEqual(got, []string{"T", "A b", "A b", "Foo & Bar"}) || d.Title() != "T" {
		t.Fatalf("headings %q title %q", got, d.Title())
	}
}

func TestSectionsSplitOnHeadings(t *testing.T) {
	d := Extract("Intro text.\n\n## One\n\nFirst.\n\n- a\n- b\n\n### Two `code`\n\n1. x\n2. y\n", Options{})
	var got []string
	for _, s := range d.Sections {
		h := ""
		if s.Heading != nil {
			h = s.Heading.Text + "#" + s.Heading.Anchor
		}
		got = append(got, h+"|"+strings.Join(s.Blocks, "/"))
	}
	want := []string{"|Intro text.", "One#one|First./- a\n- b", "Two code#two-code|1. x\n2. y"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sections %q, want %q", got, want)
	}
}

func TestAdmonitions(t *testing.T) {
	mk := "!!! note \"Heads up\"\n    Body of it.\n\n    ```py\n    print(1)\n    ```\n\n=== \"Tab one\"\n\n    Tab text.\n\nAfter.\n"
	if got, want := Extract(mk, Options{Generator: MkDocs}).Content(),
		"Heads up\n\nBody of it.\n\n```py\nprint(1)\n```\n\nTab one\n\nTab text.\n\nAfter.\n"; got != want {
		t.Fatalf("mkdocs %q, want %q", got, want)
	}
	ref := "Intro.\n\n::: httpx.request\n    :docstring:\n    :members: a b\n\nAfter it.\n"
	if got, want := Extract(ref, Options{Generator: MkDocs}).Content(), "Intro.\n\nhttpx.request\n\nAfter it.\n"; got != want {
		t.Fatalf("mkdocstrings %q, want %q", got, want)
	}
	du := ":::tip[Tip title]\nTip body\n:::\n\n:::note\nPlain\n:::\n"
	if got, want := Extract(du, Options{Generator: Docusaurus}).Content(), "Tip title\n\nTip body\n\nPlain\n"; got != want {
		t.Fatalf("docusaurus %q, want %q", got, want)
	}
}

// withoutFences moves s's fenced code blocks into code, each followed by
// a NUL, and returns the rest. It follows CommonMark 4.5 line by line: an
// opener is a run of three or more backticks (with no backtick after it)
// or tildes; the block ends at a line holding only a run of the same
// character at least as long, or at the end of s. A regexp cannot say
// "at least as long": "````\n```<A>\n````" is one block holding "```<A>".
func withoutFences(s string, code *strings.Builder) string {
	var text strings.Builder
	open := ""
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case open != "":
			code.WriteString(line)
			if strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "" {
				code.WriteByte(0)
				open = ""
			}
		case fenceOpener(t) != "":
			open = fenceOpener(t)
			code.WriteString(line)
		default:
			text.WriteString(line)
		}
	}
	if open != "" {
		code.WriteByte(0)
	}
	return text.String()
}

// fenceOpener is the marker run a trimmed line opens a fence with, or "".
func fenceOpener(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 && (c == "~" || !strings.Contains(t[n:], "`")) {
			return t[:n]
		}
	}
	return ""
}

// withoutCode drops fenced blocks and code spans from out. A code span
// opens with a run of backticks and closes at the next run of the same
// length (CommonMark 6.1), so it may hold shorter or longer runs, as in
// "````a```<b>````"; a regexp without back-references cannot say that.
func withoutCode(out string) string {
	text, _ := splitCode(out)
	return text
}

// codeOf is the code of src: its fenced blocks and code spans, each
// followed by a NUL.
func codeOf(src string) string {
	_, code := splitCode(src)
	return code
}

// splitCode separates s into its text (each code part a NUL) and its code.
func splitCode(s string) (text, code string) {
	var c strings.Builder
	out := withoutFences(s, &c)
	var b strings.Builder
	for i := 0; i < len(out); {
		if out[i] != '`' {
			b.WriteByte(out[i])
			i++
			continue
		}
		n := backtickRun(out, i)
		end := closingRun(out, i+n, n)
		if end < 0 {
			b.WriteString(out[i : i+n])
			i += n
			continue
		}
		// A NUL stands for the span: it keeps "<A`0`>" from becoming "<A>",
		// and no tag name or attribute holds one.
		b.WriteByte(0)
		c.WriteString(out[i+n:end] + "\x00")
		i = end + n
	}
	return b.String(), c.String()
}

// backtickRun is the length of the run of backticks starting at i.
func backtickRun(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun is where the next run of exactly n backticks from i starts, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := backtickRun(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// markupRe is an HTML or JSX tag.
// A tag-like run holding a code span (its NUL in withoutCode's text) is
// text around code, not a tag.
var markupRe = regexp.MustCompile(`</?[A-Za-z][\w.:-]*(\s[^<>\x00]*)?/?>`)

// escapedAngle says the input wrote a "<" or ">" as text ("<A\\>" is the
// text "<A>"), or escaped punctuation, which a page shows as text: "<A\\.0>"
// is no tag (a backslash cannot be in one), and its text is "<A.0>".
var escapedAngle = regexp.MustCompile("&lt;|&#0*60;|&#[xX]0*3[cC];|&LT;|&gt;|&#0*62;|&#[xX]0*3[eE];|&GT;|\\\\[!-/:-@\\[-`{-~]")

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"# T\n\n<Card title=\"x\">b</Card>", "<script>\nx\n</script>\n",
		"{/* c */}\n<A\n b={1}\n>\nt\n</A>", "```\n<b>\n```", "!!! note\n    x", ":::tip\nx\n:::", "<div>\n<p>a &amp; b</p>\n</div>",
		"| a | <b>c</b> |\n|---|---|\n", "- <x>y</x>\n  - z", "<Tabs.Tab>q</Tabs.Tab>", "`<a>`", "<a\nhref='x'>y</a>"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, mdx bool) {
		for _, gen := range []Generator{Docusaurus, MkDocs, Mintlify} {
			out := Extract(src, Options{MDX: mdx, Generator: gen}).Content()
			if escapedAngle.MatchString(src) {
				continue
			}
			for _, block := range strings.Split(withoutCode(out), "\n\n") {
				// Markup the source wrote as code is code, wherever the
				// output's literal backticks make its span ambiguous
				// ("`0```<A>```" is "`0" and the span "<A>").
				if m := markupRe.FindString(block); m != "" && !strings.Contains(codeOf(src), m) {
					t.Fatalf("%s mdx=%v: markup %q in %q (from %q)", gen, mdx, m, out, src)
				}
			}
		}
	})
}
