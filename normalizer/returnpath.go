package normalizer

import (
	"strings"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/safeurl"
)

// The return path trusts no backend text that a docs page could run
// (docs/docs-sites.md "Safe URLs and the widget's Content-Security-Policy"): a
// document's url, title and content are metadata anyone who edits the
// document may set. URLs that are not http(s) or a relative path are
// dropped where the backend's answer enters the gate, before anything is
// built from it; titles and snippets lose their markup where they are
// shaped.

// DropUnsafeChunkURLs removes from each chunk's metadata a url that
// safeurl refuses, so no citation, related page or context item carries it
// (the item stays, without a url). It returns how many it removed, for the
// audit record and the metrics.
func DropUnsafeChunkURLs(chunks []ragflow.Chunk) (dropped int) {
	for i := range chunks {
		u, isString := chunks[i].Metadata["url"].(string)
		if isString && safeurl.Allowed(u) {
			continue
		}
		if _, present := chunks[i].Metadata["url"]; present {
			delete(chunks[i].Metadata, "url")
			dropped++
		}
	}
	return dropped
}

// DropUnsafeHitURLs empties each hit's url that safeurl refuses, so no
// search hit, page or Meilisearch-compatible hit carries it (the hit stays,
// with an empty url). It returns how many it emptied.
func DropUnsafeHitURLs(hits []meili.Hit) (dropped int) {
	for i := range hits {
		if !safeurl.Allowed(hits[i].URL) {
			hits[i].URL = ""
			dropped++
		}
	}
	return dropped
}

// plainTitle is a title as text: markup removed (a title is never HTML, and
// a renderer that trusted it would run "<img onerror>"), whitespace folded.
func plainTitle(s string) string {
	return stripMarkup(s)
}

// meiliHighlightTags are Meilisearch's default highlight tags.
var meiliHighlightTags = []string{"<em>", "</em>"}

// stripMarkup removes every HTML tag, comment, doctype or processing
// instruction: a "<" followed by a letter, "/", "!" or "?" up to the next
// ">", or to the end when none follows (a crop may cut a tag open); a
// script or style element goes whole, its code with it. Each
// becomes a space, so what is left on either side never joins into a new
// tag ("<<b>script>" leaves "< script>"); whitespace is then folded. The
// tags in keep, exactly as written (the highlight tags Meilisearch put
// in), stay. Text without markup comes back as it is, without a copy.
func stripMarkup(s string, keep ...string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	removed := false
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		if !opensTag(s, i) || isKept(s[i:], keep) {
			b.WriteByte('<')
			i++
			continue
		}
		i = tagEnd(s, i)
		b.WriteByte(' ')
		removed = true
	}
	if !removed {
		return s
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// tagEnd is where the tag opened at s[i] ends: after its ">", or after
// the element's end tag for script and style, whose text is code, not
// text; the end of s when it is not closed.
func tagEnd(s string, i int) int {
	end := strings.IndexByte(s[i:], '>')
	if end < 0 {
		return len(s)
	}
	for _, name := range rawTextElements {
		if hasPrefixFold(s[i+1:], name) && !isNameByte(s, i+1+len(name)) {
			closing := indexFold(s[i+end+1:], "</"+name)
			if closing < 0 {
				return len(s)
			}
			return tagEnd(s, i+end+1+closing)
		}
	}
	return i + end + 1
}

// rawTextElements hold code, dropped with their tags.
var rawTextElements = []string{"script", "style"}

func isNameByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// opensTag reports whether the "<" at s[i] starts a tag as an HTML parser
// reads one: followed by an ASCII letter, "/", "!" or "?".
func opensTag(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// isKept reports whether s starts with one of the kept tags.
func isKept(s string, keep []string) bool {
	for _, tag := range keep {
		if tag != "" && strings.HasPrefix(s, tag) {
			return true
		}
	}
	return false
}
