package normalizer

import (
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
			Title:         plainTitle(h.Title),
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
		Title:         plainTitle(h.Title),
		Version:       h.Version,
		SourceProject: h.Project,
		Content:       h.Content,
		Headings:      headings,
	}
}

// MeiliHitsInScope keeps the hits inside eff for the gate's
// Meilisearch-compatible routes (which answer Meilisearch's own hit
// shape), and counts the ones dropped. A kept hit's title, and its
// highlighted title and content crop, lose their markup but for the
// highlight tags Meilisearch put in (search UIs render _formatted as
// HTML): its default <em> and </em>, and the caller's highlightPreTag and
// highlightPostTag. Its content is the page's source, as stored.
func MeiliHitsInScope(hits []meili.Hit, eff protocol.Scope, highlightTags ...string) (kept []meili.Hit, dropped int) {
	keep := append(highlightTags[:len(highlightTags):len(highlightTags)], meiliHighlightTags...)
	kept = make([]meili.Hit, 0, len(hits))
	for _, h := range hits {
		if meiliHitInScope(h, eff) {
			h.Title = plainTitle(h.Title)
			h.Formatted.Title = meili.FormattedText(stripMarkup(string(h.Formatted.Title), keep...))
			h.Formatted.Content = meili.FormattedText(stripMarkup(string(h.Formatted.Content), keep...))
			kept = append(kept, h)
			continue
		}
		dropped++
	}
	return kept, dropped
}

// meiliHitInScope is scope.Contains for a hit whose path is a clean
// repository path: "publish/x/../y" is covered by "publish/x" as a string
// but names a page outside it, so a path that normalizing would change is
// dropped (as ragChunkInScope does for chunks).
func meiliHitInScope(h meili.Hit, eff protocol.Scope) bool {
	if !scope.IsNormalPath(h.Path) {
		return false
	}
	return scope.Contains(eff, scope.Doc{Project: h.Project, Version: h.Version, Status: h.Status, Path: h.Path})
}
