package devmeili

import (
	"strings"
	"time"

	"github.com/wikigate/wikigate/samplewiki"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

// Index settings of the page index (docs/backends.md, What the backends must hold).
var (
	filterableAttributes = []string{"id", "path", "pathPrefixes", "project", "version", "status"}
	searchableAttributes = []string{"title", "headings", "content"}
)

// sampleStopWords is the stopWords setting of the index this server starts
// with (the sample corpus): the English list `wikigate ingest` gives an
// index (ingest.StopWords), so the start-up index ranks a question as an
// ingested one does. Any other index has the engine's default, no stop
// words, until its settings name some: as in Meilisearch, stop words are
// an index setting, never built in.
var sampleStopWords = strings.Fields(`a about am an and any are as at be been being but by can could
	did do does doing for from had has have how i if in into is it its me my of on or our
	shall should so than that the their them then there these they this those to too was
	we were what when where which who whom why will with would you your`)

// stopWordSet is the index's stopWords setting as normalised words.
func (ix *index) stopWordSet() map[string]bool {
	v, _ := ix.settings.get("stopWords")
	set := map[string]bool{}
	switch list := v.(type) {
	case []string:
		for _, w := range list {
			set[normalizeWord(strings.TrimSpace(w))] = true
		}
	case []any: // as a settings update decoded it
		for _, w := range list {
			if s, ok := w.(string); ok {
				set[normalizeWord(strings.TrimSpace(s))] = true
			}
		}
	}
	return set
}

// maxTotalHits is the engine's default pagination.maxTotalHits.
const maxTotalHits = 1000

// index is the one index this server holds: the wiki's pages as documents,
// pre-tokenised for search.
type index struct {
	uid       string
	docs      []orderedObject
	byID      map[string]int
	words     []docWords
	createdAt time.Time
	// settings is what PATCH /indexes/{uid}/settings stored, read back by
	// GET …/settings; search keeps using the fixed attributes above.
	settings orderedObject
}

func newIndex(uid string, corpus *samplewiki.Corpus, created time.Time) *index {
	ix := &index{uid: uid, byID: map[string]int{}, createdAt: created,
		settings: orderedObject{{"stopWords", sortedCopy(sampleStopWords)}}}
	for _, p := range corpus.Pages {
		doc := pageDocument(p)
		ix.byID[p.ID] = len(ix.docs)
		ix.docs = append(ix.docs, doc)
		ix.words = append(ix.words, indexWords(doc))
	}
	return ix
}

// pageDocument is the indexed form of a page, fields in indexing order.
func pageDocument(p samplewiki.Page) orderedObject {
	headings := p.Headings
	if headings == nil {
		headings = []string{}
	}
	prefixes := p.PathPrefixes
	if prefixes == nil {
		prefixes = []string{}
	}
	doc := orderedObject{
		{"id", p.ID}, {"path", p.Path}, {"url", p.URL}, {"title", p.Title},
		{"project", p.Project}, {"version", p.Version}, {"status", p.Status},
		{"pathPrefixes", prefixes}, {"headings", headings}, {"content", p.Content},
		{"updatedAt", p.UpdatedAt.UTC().Format(time.RFC3339)},
	}
	if p.ContentHash != "" {
		// What `wikigate ingest` stores beside each page: with it, an ingest
		// of the sample tree finds the start-up index already up to date.
		doc = append(doc, field{"contentHash", p.ContentHash})
	}
	return doc
}

// selectFields keeps the attributes named in attrs, in document order; nil
// or "*" keeps all of them. Unknown names are ignored, like the engine does.
func selectFields(doc orderedObject, attrs []string) orderedObject {
	if attrs == nil || contains(attrs, "*") {
		return append(orderedObject(nil), doc...)
	}
	out := orderedObject{}
	for _, f := range doc {
		if contains(attrs, f.name) {
			out = append(out, f)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// filterDocs returns the positions of the documents node accepts, in index order.
func (ix *index) filterDocs(node filterexpr.Node) []int {
	var out []int
	for i, d := range ix.docs {
		if node == nil || matches(node, d) {
			out = append(out, i)
		}
	}
	return out
}
