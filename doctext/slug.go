package doctext

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// GitHubSlug is github-slugger's rule, which Docusaurus uses and the gate
// reads a chunk's first heading with: lower case, drop everything but
// letters, marks, digits, spaces, "-" and "_", then each space becomes "-".
func GitHubSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	notWordSpaceHyphen = regexp.MustCompile(`[^\w\s-]`)
	hyphenSpaceRuns    = regexp.MustCompile(`[-\s]+`)
)

// MkDocsSlug is Python-Markdown's toc slugify, MkDocs' default: NFKD,
// ASCII only, drop what is not a word character, space or hyphen, lower
// case, and runs of spaces and hyphens become one hyphen.
func MkDocsSlug(text string) string {
	var ascii strings.Builder
	for _, r := range norm.NFKD.String(text) {
		if r < 0x80 {
			ascii.WriteRune(r)
		}
	}
	s := notWordSpaceHyphen.ReplaceAllString(ascii.String(), "")
	s = strings.ToLower(strings.TrimSpace(s))
	return hyphenSpaceRuns.ReplaceAllString(s, "-")
}

// MintlifySlug is Mintlify's anchor: lower case, ASCII punctuation other
// than "-" and "_" dropped, other characters kept (a curly apostrophe
// stays), each run of whitespace and hyphens one "-".
func MintlifySlug(text string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case r < 0x80 && r != '-' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r):
			continue
		}
		if r == '-' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte('-')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// slugger makes anchors unique within a page as the generator does: the
// second "x" is "x-1" (github-slugger, Mintlify) or "x_1" (MkDocs).
type slugger struct {
	gen  Generator
	seen map[string]int
}

func (s *slugger) slug(text string) string {
	var base string
	sepr := "-"
	switch s.gen {
	case MkDocs:
		base, sepr = MkDocsSlug(text), "_"
	case Mintlify:
		base = MintlifySlug(text)
	default:
		base = GitHubSlug(text)
	}
	return s.unique(base, sepr)
}

func (s *slugger) unique(base, sepr string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	id := base
	for {
		if _, taken := s.seen[id]; !taken {
			break
		}
		s.seen[base]++
		id = base + sepr + strconv.Itoa(s.seen[base])
	}
	s.seen[id] = 0
	return id
}

// taken records an explicit id, so a later generated one does not repeat it.
func (s *slugger) taken(id string) {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	if _, ok := s.seen[id]; !ok {
		s.seen[id] = 0
	}
}

// explicitID splits "Title {#id}" (Docusaurus, MkDocs attr_list's
// "{ #id .class }") into the text and the id.
var explicitIDRe = regexp.MustCompile(`\s*\{\s*#([A-Za-z0-9_\-.:]+)[^{}]*\}\s*$`)

func explicitID(text string) (string, string, bool) {
	m := explicitIDRe.FindStringSubmatchIndex(text)
	if m == nil {
		return text, "", false
	}
	return text[:m[0]], text[m[2]:m[3]], true
}
