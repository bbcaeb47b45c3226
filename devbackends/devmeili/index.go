package devmeili

import (
	"strings"
	"time"

	"github.com/wikigate/wikigate/samplewiki"
)

// Index settings of the page index (README, Backends: the data contract).
var (
	filterableAttributes = []string{"id", "path", "pathPrefixes", "project", "version", "status"}
	searchableAttributes = []string{"title", "headings", "content"}
)

// stopWords is the index's stopWords setting: these words are dropped from
// queries, so a question such as "how do I configure agent memory" searches
// for its content words. A real index serving wikigate should be given the
// same setting (PATCH /indexes/{uid}/settings/stop-words) for parity.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about am an and any are as at be been being but by can could
		did do does doing for from had has have how i if in into is it its me my of on or our
		shall should so than that the their them then there these they this those to too was
		we were what when where which who whom why will with would you your`) {
		stopWords[w] = true
	}
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
	ix := &index{uid: uid, byID: map[string]int{}, createdAt: created}
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
func (ix *index) filterDocs(node filterNode) []int {
	var out []int
	for i, d := range ix.docs {
		if node == nil || node.matches(d) {
			out = append(out, i)
		}
	}
	return out
}
