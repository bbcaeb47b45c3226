package normalizer

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// ragCitation builds a citation from a chunk alone, as the corpus
// convention allows (DESIGN §6): everything comes from its document
// metadata, the anchor from its first heading.
func ragCitation(c *ragflow.Chunk) protocol.Citation {
	title := c.MetaString("title")
	if title == "" {
		title = c.DocumentName
	}
	return protocol.Citation{
		Path:          c.MetaString("path"),
		URL:           c.MetaString("url"),
		Title:         title,
		Anchor:        headingAnchor(c.Content),
		ChunkID:       c.ID,
		SourceProject: c.MetaString("project"),
		Version:       c.MetaString("version"),
	}
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	customID   = regexp.MustCompile(`[ \t]*\{#([A-Za-z0-9_-]+)\}$`)
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	codeFence  = regexp.MustCompile("^ {0,3}(```|~~~)")
)

// headingAnchor is the anchor of the chunk's first markdown heading, as the
// docs site (Docusaurus, github-slugger) makes it: "## Memory backends" →
// "memory-backends", or the explicit id of "## Title {#id}". Headings in
// code blocks do not count, and a level-1 heading is the page title, whose
// anchor is the page itself: "".
func headingAnchor(content string) string {
	inFence := false
	for line := range strings.SplitSeq(content, "\n") {
		line = strings.TrimRight(line, "\r")
		if codeFence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := atxHeading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		if len(m[1]) == 1 {
			return ""
		}
		if id := customID.FindStringSubmatch(m[2]); id != nil {
			return id[1]
		}
		return slugify(m[2])
	}
	return ""
}

// slugify is github-slugger's rule on the heading's text: lower case, drop
// everything but letters, marks, digits, spaces, "-" and "_", then each
// space becomes "-".
func slugify(heading string) string {
	heading = strings.TrimSpace(mdLink.ReplaceAllString(heading, "$1"))
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// citedAnswer is an answer text whose markers were checked: the text with
// valid markers rewritten and invalid ones removed, and its citations.
type citedAnswer struct {
	text      string
	citations []protocol.Citation
	cited     map[string]bool // chunk ids
	topScore  float64
}

// citeMarkers resolves the answer's markers against the prompt's chunks
// (marker n ↔ chunks[n]). A marker naming no chunk, or a chunk outside the
// scope, is removed from the text with the space before it. Citations are
// de-duplicated by chunk id and ordered by score (best first, then first
// mention); valid markers are rewritten to the canonical [ID:k], k being the
// citation's index in citations, so a client can resolve them.
func citeMarkers(text string, chunks []ragflow.Chunk, inScope []bool) citedAnswer {
	markers := ragflow.FindMarkers(text)
	valid := func(n int) bool { return n >= 0 && n < len(chunks) && inScope[n] }
	ca := citedAnswer{cited: map[string]bool{}, citations: []protocol.Citation{}}
	var order []*ragflow.Chunk
	score := map[string]float64{}
	for _, m := range markers {
		for _, n := range m.Blocks {
			if !valid(n) {
				continue
			}
			c := &chunks[n]
			if !ca.cited[c.ID] {
				ca.cited[c.ID] = true
				order = append(order, c)
				score[c.ID] = c.Similarity
			}
			score[c.ID] = max(score[c.ID], c.Similarity)
		}
	}
	slices.SortStableFunc(order, func(a, b *ragflow.Chunk) int { return cmp.Compare(score[b.ID], score[a.ID]) })
	index := make(map[string]int, len(order))
	for k, c := range order {
		index[c.ID] = k
		ca.citations = append(ca.citations, ragCitation(c))
		ca.topScore = max(ca.topScore, score[c.ID])
	}
	ca.text = rewriteMarkers(text, markers, func(n int) (int, bool) {
		if !valid(n) {
			return 0, false
		}
		return index[chunks[n].ID], true
	})
	return ca
}

// rewriteMarkers replaces each marker with the canonical markers of its
// valid blocks, or removes it, with the blank before it, when none is
// valid. A marker repeating one already written since the last text
// ("[ID:0][ID:0]") is written once.
func rewriteMarkers(text string, markers []ragflow.Marker, resolve func(n int) (int, bool)) string {
	var b strings.Builder
	last, run, trimNext := 0, map[string]bool{}, false
	for _, m := range markers {
		before := text[last:m.Start]
		last = m.End
		if trimNext {
			before = strings.TrimLeft(before, " \t")
		}
		if strings.TrimSpace(before) != "" {
			clear(run)
		}
		var canon strings.Builder
		for _, n := range m.Blocks {
			if k, ok := resolve(n); ok {
				mk := "[ID:" + strconv.Itoa(k) + "]"
				if !run[mk] {
					run[mk] = true
					canon.WriteString(mk)
				}
			}
		}
		if canon.Len() == 0 {
			b.WriteString(strings.TrimRight(before, " \t"))
			out := b.String()
			trimNext = out == "" || strings.HasSuffix(out, "\n")
			continue
		}
		b.WriteString(before)
		b.WriteString(canon.String())
		trimNext = false
	}
	rest := text[last:]
	if trimNext {
		rest = strings.TrimLeft(rest, " \t")
	}
	b.WriteString(rest)
	return strings.TrimSpace(b.String())
}

// ragRelatedPages lists the in-scope pages that were retrieved but not
// cited (a page with any cited chunk is already a citation), one entry per
// path with its best score, best first, at most maxRelatedPages.
func ragRelatedPages(chunks []ragflow.Chunk, inScope []bool, cited map[string]bool) []protocol.RelatedPage {
	citedPaths := map[string]bool{}
	for i := range chunks {
		if inScope[i] && cited[chunks[i].ID] {
			citedPaths[chunks[i].MetaString("path")] = true
		}
	}
	out := []protocol.RelatedPage{}
	at := map[string]int{}
	for i := range chunks {
		c := &chunks[i]
		path := c.MetaString("path")
		if !inScope[i] || citedPaths[path] {
			continue
		}
		if j, seen := at[path]; seen {
			out[j].Score = max(out[j].Score, c.Similarity)
			continue
		}
		at[path] = len(out)
		cit := ragCitation(c)
		out = append(out, protocol.RelatedPage{Path: path, URL: cit.URL, Title: cit.Title,
			SourceProject: cit.SourceProject, Version: cit.Version, Score: c.Similarity})
	}
	slices.SortStableFunc(out, func(a, b protocol.RelatedPage) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(len(out), maxRelatedPages)]
}

const maxRelatedPages = 5
