package normalizer

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// ragCitation builds a citation from a chunk alone, as the data contract
// allows (docs/backends.md, RAGFlow "Write side": every document carries its
// citation metadata): everything comes from its document metadata, the anchor
// from its first heading.
func ragCitation(c *ragflow.Chunk) protocol.Citation {
	return protocol.Citation{
		Path:          c.MetaString("path"),
		URL:           c.MetaString("url"),
		Title:         citationTitle(c),
		Anchor:        headingAnchor(c.Content),
		ChunkID:       c.ID,
		SourceProject: c.MetaString("project"),
		Version:       c.MetaString("version"),
	}
}

// mdLink is a markdown link or image, whose text a heading's anchor keeps.
var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// citationTitle is the page title, or the document's name without one, as
// text (plainTitle).
func citationTitle(c *ragflow.Chunk) string {
	if title := c.MetaString("title"); title != "" {
		return plainTitle(title)
	}
	return plainTitle(c.DocumentName)
}

// headingAnchor is the anchor of the chunk's first markdown heading, as the
// docs site (Docusaurus, github-slugger) makes it: "## Memory backends" →
// "memory-backends", or the explicit id of "## Title {#id}". Headings in
// code blocks do not count, and a level-1 heading is the page title, whose
// anchor is the page itself: "".
func headingAnchor(content string) string {
	inFence := false
	for line := range strings.SplitSeq(content, "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimLeft(line, " "); t == "" || !strings.ContainsRune("`~#", rune(t[0])) {
			continue // neither a fence nor a heading: skip the regexps
		}
		if isCodeFence(line) {
			inFence = !inFence
			continue
		}
		level, text, ok := atxHeading(line)
		if inFence || !ok {
			continue
		}
		if level == 1 {
			return ""
		}
		if id, ok := customHeadingID(text); ok {
			return id
		}
		return slugify(text)
	}
	return ""
}

// slugify is github-slugger's rule on the heading's text: lower case, drop
// everything but letters, marks, digits, spaces, "-" and "_", then each
// space becomes "-".
func slugify(heading string) string {
	if strings.Contains(heading, "[") {
		heading = mdLink.ReplaceAllString(heading, "$1")
	}
	heading = strings.TrimSpace(heading)
	var b strings.Builder
	b.Grow(len(heading))
	for _, r := range heading {
		// unicode.ToLower rune by rune is strings.ToLower's output read
		// back: it maps each rune so, an invalid byte to U+FFFD.
		switch r = unicode.ToLower(r); {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ragRelatedPages lists the in-scope pages that were retrieved but not
// cited (a page with any cited chunk is already a citation), one entry per
// path with its best score, best first, at most maxRelatedPages. A prompt
// holds a few dozen chunks at most: slices are scanned, no map is built.
func ragRelatedPages(chunks []ragflow.Chunk, inScope []bool, cited refs) []protocol.RelatedPage {
	var citedPaths []string
	for i := range chunks {
		if inScope[i] && cited.of(chunks[i].ID) > 0 {
			citedPaths = append(citedPaths, chunks[i].MetaString("path"))
		}
	}
	out := make([]protocol.RelatedPage, 0, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if !inScope[i] {
			continue
		}
		path := c.MetaString("path")
		if slices.Contains(citedPaths, path) {
			continue
		}
		if j := slices.IndexFunc(out, func(p protocol.RelatedPage) bool { return p.Path == path }); j >= 0 {
			out[j].Score = max(out[j].Score, c.Similarity)
			continue
		}
		out = append(out, protocol.RelatedPage{Path: path, URL: c.MetaString("url"), Title: citationTitle(c),
			SourceProject: c.MetaString("project"), Version: c.MetaString("version"), Score: c.Similarity})
	}
	slices.SortStableFunc(out, func(a, b protocol.RelatedPage) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(len(out), maxRelatedPages)]
}

const maxRelatedPages = 5
