package meiliroutes

import (
	"regexp"
	"strings"

	"github.com/wikigate/wikigate/doctext"
	"github.com/wikigate/wikigate/normalizer"
)

// docSection is one section of a page as its content holds it (each
// heading on its own line as "## Text", docs/backends.md): the heading
// that opens it and the text up to the next heading.
type docSection struct {
	level  int       // its heading's level, 1–6; 0 for text before any heading
	anchor string    // the heading's anchor on the docs site; "" for the page itself
	trail  [7]string // the headings in force, by level: trail[2] is the last "##" heading
	body   string    // its text, plain, code blocks left out
}

// pageSections splits a page's content at its ATX headings (outside
// fenced code). A level-1 heading is the page title, whose anchor is the
// page itself, as for citations.
func pageSections(content string) []docSection {
	var out []docSection
	var cur docSection
	var body []string
	flush := func() {
		cur.body = plainText(strings.Join(body, " "))
		if cur.level > 0 || cur.body != "" {
			out = append(out, cur)
		}
		body = nil
	}
	var fence string
	for line := range strings.SplitSeq(content, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpening(t); f != "" {
			fence = f
			continue
		}
		level, text, ok := atxHeading(line)
		if !ok {
			body = append(body, listMarker.ReplaceAllString(t, ""))
			continue
		}
		flush()
		next := docSection{level: level, trail: cur.trail}
		heading, id := headingText(text)
		next.trail[level] = heading
		for l := level + 1; l <= 6; l++ {
			next.trail[l] = ""
		}
		if level > 1 {
			next.anchor = id
		}
		cur = next
	}
	flush()
	return out
}

var (
	atxHeadingRe = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	explicitIDRe = regexp.MustCompile(`\s*\{\s*#([A-Za-z0-9_\-.:]+)[^{}]*\}\s*$`)
	mdLinkRe     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	listMarker   = regexp.MustCompile(`^(?:[-*+>]|\d{1,9}[.)])\s+`)
)

// atxHeading reads "## Text" (up to three spaces before, closing #s
// dropped): its level and text.
func atxHeading(line string) (int, string, bool) {
	m := atxHeadingRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
	if m == nil {
		return 0, "", false
	}
	return len(m[1]), m[2], true
}

// fenceOpening is the fence a line opens (``` or ~~~, three or more), ""
// when it opens none.
func fenceOpening(t string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			n := len(t) - len(strings.TrimLeft(t, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// headingText is a heading's text as plain text and its anchor: the
// explicit "{#id}" when there is one, else GitHub's slug of the text (the
// rule the page content uses; a heading's markup is not part of its text).
func headingText(raw string) (text, anchor string) {
	if m := explicitIDRe.FindStringSubmatchIndex(raw); m != nil {
		anchor, raw = raw[m[2]:m[3]], raw[:m[0]]
	}
	text = plainText(raw)
	if anchor == "" {
		anchor = doctext.GitHubSlug(text)
	}
	return text, anchor
}

// plainText is page text as a docs search bar may show it: markdown links
// reduced to their text, no markup, whitespace folded.
func plainText(s string) string {
	if strings.Contains(s, "](") {
		s = mdLinkRe.ReplaceAllString(s, "$1")
	}
	return strings.Join(strings.Fields(normalizer.PlainText(s)), " ")
}

// bestSection is the section a record shows: the one matching most query
// words (a word in its heading counts twice), the first on a tie; the
// page's first section when none matches or nothing was asked.
func bestSection(sections []docSection, terms []queryTerm) docSection {
	if len(sections) == 0 {
		return docSection{}
	}
	best, bestScore := 0, 0
	for i, s := range sections {
		score := 0
		for _, t := range terms {
			switch {
			case t.in(s.trail[s.level]):
				score += 2
			case t.in(s.body):
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return sections[best]
}
