package normalizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// Snippet bounds. A crop Meilisearch made is kept up to meiliCropMaxRunes
// (a guard against a crop asked too long); without one, the start of the
// content is used.
const (
	meiliSnippetRunes = 200
	meiliCropMaxRunes = 500
)

// SearchHits reshapes Meilisearch hits into protocol search hits, in the
// backend's order, dropping and counting every hit outside eff
// (scope.Contains). The result is never nil so it encodes as [].
func SearchHits(hits []meili.Hit, eff protocol.Scope) (out []protocol.SearchHit, dropped int) {
	out = make([]protocol.SearchHit, 0, len(hits))
	for _, h := range hits {
		if !meiliHitInScope(h, eff) {
			dropped++
			continue
		}
		out = append(out, protocol.SearchHit{
			Path:          h.Path,
			URL:           h.URL,
			Title:         h.Title,
			Snippet:       meiliSnippet(h),
			Score:         h.RankingScore,
			SourceProject: h.Project,
			Version:       h.Version,
		})
	}
	return out, dropped
}

// Pages reshapes hits for get_page: one Page per requested path found in
// eff, in the order of requested (repeats ignored). A requested path with no
// matching hit gets a PageError not_found whose message does not say
// whether the page exists outside the scope. Hits outside eff and hits for
// paths nobody asked for (Meilisearch's filters are case-insensitive) are
// dropped and counted; a second hit for a path already answered is ignored.
// Both slices are never nil.
func Pages(hits []meili.Hit, eff protocol.Scope, requested []string) (pages []protocol.Page, errs []protocol.PageError, dropped int) {
	byPath := make(map[string]meili.Hit, len(requested))
	for _, p := range requested {
		byPath[p] = meili.Hit{}
	}
	found := make(map[string]bool, len(requested))
	for _, h := range hits {
		if _, asked := byPath[h.Path]; !asked || !meiliHitInScope(h, eff) {
			dropped++
			continue
		}
		if !found[h.Path] {
			byPath[h.Path], found[h.Path] = h, true
		}
	}
	pages, errs = []protocol.Page{}, []protocol.PageError{}
	answered := make(map[string]bool, len(requested))
	for _, p := range requested {
		if answered[p] {
			continue
		}
		answered[p] = true
		if !found[p] {
			errs = append(errs, protocol.PageError{Path: p, Code: protocol.CodeNotFound, Message: "page not found in scope"})
			continue
		}
		pages = append(pages, meiliPage(byPath[p]))
	}
	return pages, errs, dropped
}

func meiliPage(h meili.Hit) protocol.Page {
	headings := h.Headings
	if headings == nil {
		headings = []string{}
	}
	return protocol.Page{
		Path:          h.Path,
		URL:           h.URL,
		Title:         h.Title,
		Version:       h.Version,
		SourceProject: h.Project,
		Content:       h.Content,
		Headings:      headings,
	}
}

// meiliHitInScope is scope.Contains for a hit whose path is a clean
// repository path: "publish/x/../y" is covered by "publish/x" as a string
// but names a page outside it, so a path that normalizing would change is
// dropped (as ragChunkInScope does for chunks).
// MeiliHitsInScope keeps the hits inside eff, unchanged, for the gate's
// Meilisearch-compatible routes (which answer Meilisearch's own hit
// shape), and counts the ones dropped.
func MeiliHitsInScope(hits []meili.Hit, eff protocol.Scope) (kept []meili.Hit, dropped int) {
	kept = make([]meili.Hit, 0, len(hits))
	for _, h := range hits {
		if meiliHitInScope(h, eff) {
			kept = append(kept, h)
			continue
		}
		dropped++
	}
	return kept, dropped
}

func meiliHitInScope(h meili.Hit, eff protocol.Scope) bool {
	if clean, err := scope.NormalizePath("path", h.Path); err != nil || clean != h.Path {
		return false
	}
	return scope.Contains(eff, scope.Doc{Project: h.Project, Version: h.Version, Status: h.Status, Path: h.Path})
}

// meiliSnippet is the crop Meilisearch made of the content (_formatted is
// only there when a crop or highlight was asked), else the start of the
// content; plain text, whitespace collapsed.
func meiliSnippet(h meili.Hit) string {
	if crop := string(h.Formatted.Content); strings.TrimSpace(crop) != "" {
		return meiliPlainText(crop, meiliCropMaxRunes, true)
	}
	return meiliPlainText(h.Content, meiliSnippetRunes, false)
}

// meiliPlainText is, in one pass (it runs for every hit of every search),
// the text with <em>/</em> removed when stripTags is set (Meilisearch's
// default highlight tags: the gate asks for crops, not highlights, but a
// snippet must be plain text either way), every run of
// whitespace folded into one space, the ends trimmed, and cut after limit
// runes with "…".
func meiliPlainText(s string, limit int, stripTags bool) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*limit+4))
	n, space := 0, false
	for i := 0; i < len(s); {
		if stripTags && s[i] == '<' {
			if strings.HasPrefix(s[i:], "<em>") {
				i += 4
				continue
			}
			if strings.HasPrefix(s[i:], "</em>") {
				i += 5
				continue
			}
		}
		// Most text is ASCII: its bytes are runes and need no decoding.
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if isSpace(r) {
			space = n > 0
			continue
		}
		if n == limit {
			return b.String() + "…"
		}
		if space {
			if n+1 == limit {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			n, space = n+1, false
		}
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// isSpace is unicode.IsSpace with the ASCII answers looked up directly.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
