package devragflow

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/wikigate/wikigate/samplewiki"
)

// dataset is a catalog dataset with the documents the corpus puts in it.
type dataset struct {
	samplewiki.Dataset
	docs    []*document
	created time.Time
	updated time.Time
}

// document is one wiki page as a RAGFlow document.
type document struct {
	id      string
	name    string // document_keyword: the page's base file name
	dataset *dataset
	page    samplewiki.Page
	// meta is the document's meta_fields: strings for the corpus, any
	// value PATCH accepts (string, number, bool, list of those) for
	// uploaded documents.
	meta   map[string]any
	chunks []*chunk
	// run is the parsing state the documents list reports: DONE for the
	// corpus; UNSTART after an upload until a parse request (writes.go).
	run      string
	uploaded bool
}

// chunk is one indexed piece of a document.
type chunk struct {
	id      string
	doc     *document
	content string
	terms   map[string]int // term frequencies of content
	title   map[string]bool
	norm    float64 // length of the chunk's weighted term vector
}

// model is the corpus seen as RAGFlow datasets, documents and chunks.
type model struct {
	datasets  []*dataset
	byDataset map[string]*dataset
	byDoc     map[string]*document
	chunks    []*chunk
	idf       map[string]float64
	tenantID  string
	// reservedIDs maps a dataset name to the id a dataset created under it
	// gets (Config.Empty); other names get a derived id.
	reservedIDs map[string]string
}

// buildModel maps every page to a document of corpus.DatasetFor(page).
func buildModel(corpus *samplewiki.Corpus) *model {
	m := &model{
		byDataset: map[string]*dataset{},
		byDoc:     map[string]*document{},
		tenantID:  stableID("tenant", "wikigate-dev"),
	}
	for _, d := range corpus.Datasets {
		ds := &dataset{Dataset: d}
		m.datasets = append(m.datasets, ds)
		m.byDataset[d.ID] = ds
	}
	for _, p := range corpus.Pages {
		d, ok := corpus.DatasetFor(p)
		if !ok {
			continue // samplewiki.Load already rejects such pages
		}
		m.addDocument(m.byDataset[d.ID], p)
	}
	m.stampDates()
	m.idf = inverseDocumentFrequency(m.chunks)
	for _, c := range m.chunks {
		c.norm = m.chunkNorm(c)
	}
	return m
}

func (m *model) addDocument(ds *dataset, p samplewiki.Page) {
	doc := &document{
		id:      stableID("document", p.Version, p.Path),
		name:    path.Base(p.Path),
		dataset: ds,
		page:    p,
		meta: map[string]any{
			"path": p.Path, "url": p.URL, "title": p.Title,
			"project": p.Project, "version": p.Version, "status": p.Status,
		},
		run: "DONE",
	}
	if p.ContentHash != "" {
		// What `wikigate ingest` stores beside the citation metadata: with
		// it, an ingest of the sample tree finds these documents up to date.
		doc.meta["contentHash"] = p.ContentHash
	}
	doc.chunkContent()
	m.chunks = append(m.chunks, doc.chunks...)
	ds.docs = append(ds.docs, doc)
	m.byDoc[doc.id] = doc
}

// chunkContent cuts the document's text into chunks, as parsing does.
func (doc *document) chunkContent() {
	titleTerms := map[string]bool{}
	for _, t := range tokenize(doc.title()) {
		titleTerms[t] = true
	}
	doc.chunks = nil
	for i, text := range splitPage(doc.page.Content) {
		doc.chunks = append(doc.chunks, &chunk{
			id:      stableID("chunk", doc.id, strconv.Itoa(i), text),
			doc:     doc,
			content: text,
			terms:   termFrequencies(text),
			title:   titleTerms,
		})
	}
}

// title is the metadata title, else the document name (an uploaded
// document has no metadata until its PATCH).
func (doc *document) title() string {
	if t, ok := doc.meta["title"].(string); ok && t != "" {
		return t
	}
	return doc.name
}

// stampDates gives each dataset the span of its pages' update dates; an
// empty dataset takes the corpus-wide earliest date so it is still stable.
func (m *model) stampDates() {
	var earliest time.Time
	for _, ds := range m.datasets {
		for _, doc := range ds.docs {
			u := doc.page.UpdatedAt
			if ds.created.IsZero() || u.Before(ds.created) {
				ds.created = u
			}
			if u.After(ds.updated) {
				ds.updated = u
			}
		}
		if !ds.created.IsZero() && (earliest.IsZero() || ds.created.Before(earliest)) {
			earliest = ds.created
		}
	}
	for _, ds := range m.datasets {
		if ds.created.IsZero() {
			ds.created, ds.updated = earliest, earliest
		}
	}
}

// chunkCount and tokenCount are the sizes RAGFlow reports for a dataset.
func (ds *dataset) chunkCount() int {
	n := 0
	for _, d := range ds.docs {
		n += len(d.chunks)
	}
	return n
}

func (ds *dataset) tokenCount() int {
	n := 0
	for _, d := range ds.docs {
		n += d.tokenCount()
	}
	return n
}

func (d *document) tokenCount() int { return len(tokenize(d.page.Content)) }

// stableID is a 32-hex id derived from parts, so ids survive restarts and
// the same page always yields the same document and chunk ids.
func stableID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}
