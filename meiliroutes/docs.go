package meiliroutes

import (
	"slices"
	"strconv"
	"strings"

	"github.com/wikigate/wikigate/meili"
)

// meiliView is what an index uid of the Meilisearch-compatible routes
// serves: the page index's own documents, or the same pages as the records
// meilisearch/docs-scraper writes (docs/docs-sites.md, Search boxes:
// docs search bars), which docs search bars such as meilisearch-docsearch
// and docs-searchbar.js read. Both search the one page index with the
// decided filter; the view only shapes the in-scope hits.
type meiliView int

const (
	pageView meiliView = iota
	docsView
)

// docsIndexSuffix names the docs-scraper view: the gate's index uid plus
// this ("wiki_pages-docs").
const docsIndexSuffix = "-docs"

// viewOf is the view an index uid names, false for any other uid: index
// is the gate's own (gateway.Call.Index).
func viewOf(index, uid string) (meiliView, bool) {
	switch uid {
	case index:
		return pageView, true
	case index + docsIndexSuffix:
		return docsView, true
	}
	return pageView, false
}

// docsAttributes are the fields of a docs-scraper record the view shows:
// docs-scraper's own (hierarchy, radio hierarchy, content, anchor, url,
// type, objectID) and the page's project, version and status, as
// docs-scraper adds a site's variables.
var docsAttributes = []string{
	"objectID",
	"hierarchy_lvl0", "hierarchy_lvl1", "hierarchy_lvl2", "hierarchy_lvl3", "hierarchy_lvl4", "hierarchy_lvl5", "hierarchy_lvl6",
	"hierarchy_radio_lvl0", "hierarchy_radio_lvl1", "hierarchy_radio_lvl2", "hierarchy_radio_lvl3",
	"hierarchy_radio_lvl4", "hierarchy_radio_lvl5", "hierarchy_radio_lvl6",
	"content", "anchor", "url", "url_without_anchor", "type", "project", "version", "status",
}

// docsPageFields are the page fields a record is built from.
var docsPageFields = []string{"id", "path", "url", "title", "project", "version", "status", "content"}

// attributes are the fields the view shows.
func (v meiliView) attributes() []string {
	if v == docsView {
		return docsAttributes
	}
	return meiliAttributes
}

// backendAttributes are the page fields to retrieve for the shown ones.
func (v meiliView) backendAttributes(shown []string) []string {
	if v == docsView {
		return docsPageFields
	}
	return shown
}

// docsHit is the docs-scraper record of one in-scope page: its section
// that best matches the query (bestSection), with the shown fields only,
// and _formatted (highlighted and cropped by the gate, as Meilisearch
// would) when the caller asked for highlighting or cropping. Every value
// is plain text: docs search bars put the hierarchy and content into
// innerHTML.
func docsHit(h meili.Hit, q *meiliQuery, shown []string) map[string]any {
	terms := queryTerms(q.question())
	sections := pageSections(h.Content)
	rec := docsRecord(h, bestSection(sections, terms))
	out := make(map[string]any, len(shown)+1)
	for _, a := range shown {
		out[a] = nullable(rec[a])
	}
	if len(q.AttributesToHighlight) == 0 && len(q.AttributesToCrop) == 0 {
		return out
	}
	f := formatter{terms: terms, pre: derefOr(q.HighlightPreTag, "<em>"), post: derefOr(q.HighlightPostTag, "</em>"),
		marker: derefOr(q.CropMarker, "…"), cropLength: derefIntOr(q.CropLength, 10)}
	formatted := make(map[string]any, len(shown))
	for _, a := range shown {
		formatted[a] = nullable(f.format(a, rec[a], q.AttributesToHighlight, q.AttributesToCrop))
	}
	out["_formatted"] = formatted
	return out
}

// docsRecord is the record of section s of page h, its fields by name (an
// absent or empty value is JSON null, as docs-scraper writes a level it
// has not got). hierarchy_lvl0 is the project (docs search bars group
// hits by it), lvl1 the page title, lvl2…lvl6 the headings above and at
// the section. The url is the page's (already checked by safeurl) with
// the section's anchor.
func docsRecord(h meili.Hit, s docSection) map[string]string {
	rec := map[string]string{
		"hierarchy_lvl0": h.Project, "hierarchy_lvl1": plainText(h.Title),
		"project": h.Project, "version": h.Version, "status": h.Status,
		"url_without_anchor": h.URL, "anchor": s.anchor, "content": s.body,
	}
	if rec["hierarchy_lvl1"] == "" {
		rec["hierarchy_lvl1"] = s.trail[1]
	}
	for lvl := 2; lvl <= 6; lvl++ {
		rec["hierarchy_lvl"+strconv.Itoa(lvl)] = s.trail[lvl]
	}
	level := max(s.level, 1)
	rec["type"] = "lvl" + strconv.Itoa(level)
	if s.body != "" {
		rec["type"] = "content" // docs-scraper's radio levels are all null then
	} else {
		rec["hierarchy_radio_lvl"+strconv.Itoa(level)] = rec["hierarchy_lvl"+strconv.Itoa(level)]
	}
	rec["url"] = h.URL
	if h.URL != "" && s.anchor != "" && !strings.Contains(h.URL, "#") {
		rec["url"] = h.URL + "#" + s.anchor
	}
	rec["objectID"] = string(h.ID)
	if s.anchor != "" {
		rec["objectID"] += "#" + s.anchor
	}
	return rec
}

// nullable is v, or nil for "" (JSON null).
func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func derefIntOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// formatEntry finds name in a list of "attr" or "attr:length" entries ("*"
// for every field): whether it is there, and the length given with it.
func formatEntry(list []string, name string) (found bool, length int) {
	for _, e := range list {
		attr, n, hasLen := strings.Cut(e, ":")
		if attr != name && attr != "*" {
			continue
		}
		found = true
		if l, err := strconv.Atoi(n); hasLen && err == nil && l > 0 {
			length = min(l, maxMeiliCropLength)
		}
		if attr == name {
			break
		}
	}
	return found, length
}

// formatter highlights and crops record values as Meilisearch formats
// _formatted.
type formatter struct {
	terms      []queryTerm
	pre, post  string
	marker     string
	cropLength int
}

func (f formatter) format(name, value string, highlight, crop []string) string {
	if value == "" {
		return ""
	}
	if ok, n := formatEntry(crop, name); ok && docsFormattable(name) {
		value = cropWords(value, f.terms, cmpOr(n, f.cropLength), f.marker)
	}
	if docsFormattable(name) && slices.ContainsFunc(highlight, func(e string) bool { return e == name || e == "*" }) {
		value = highlightTerms(value, f.terms, f.pre, f.post)
	}
	return value
}

// docsFormattable are the text fields the gate highlights and crops, as
// the page view formats title and content only: the hierarchy and the
// content, never a url, an anchor or an id.
func docsFormattable(name string) bool {
	return name == "content" || strings.HasPrefix(name, "hierarchy_")
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}
