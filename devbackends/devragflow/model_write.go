package devragflow

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/wikigate/wikigate/samplewiki"
)

// The model's write side, used by the ingestion routes (writes*.go). The
// server holds its write lock around every call here, so readers (retrieval,
// listings) never see a half-applied change.

// createDataset adds an empty dataset. Like duplicate_name, a name already
// taken (case-insensitively) gets "(1)", "(2)", … appended: create is not
// idempotent in RAGFlow either (docs/backends.md, RAGFlow write side).
func (m *model) createDataset(name string, now time.Time) *dataset {
	name = m.freeName(name, func(n string) bool {
		for _, ds := range m.datasets {
			if strings.EqualFold(ds.Name, n) {
				return true
			}
		}
		return false
	})
	ds := &dataset{
		Dataset: samplewiki.Dataset{ID: m.newDatasetID(name), Name: name},
		created: now, updated: now,
	}
	m.datasets = append(m.datasets, ds)
	m.byDataset[ds.ID] = ds
	return ds
}

// newDatasetID is the id reserved for name, unless a dataset already has
// it, else one derived from the name and the number of datasets.
func (m *model) newDatasetID(name string) string {
	if id, ok := m.reservedIDs[name]; ok && m.byDataset[id] == nil {
		return id
	}
	return stableID("dataset", m.tenantID, name, strconv.Itoa(len(m.datasets)))
}

// freeName is duplicate_name: name, else "stem(n).ext" for the first free n.
func (m *model) freeName(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 1; ; n++ {
		if candidate := fmt.Sprintf("%s(%d)%s", stem, n, ext); !taken(candidate) {
			return candidate
		}
	}
}

// uploadDocument stores a file as an unparsed document of ds (run UNSTART,
// no chunks, no metadata); a name already in the dataset is renamed.
func (m *model) uploadDocument(ds *dataset, name, content string, now time.Time) *document {
	name = m.freeName(name, func(n string) bool {
		for _, d := range ds.docs {
			if strings.EqualFold(d.name, n) {
				return true
			}
		}
		return false
	})
	doc := &document{
		id:       stableID("document", ds.ID, name, now.Format(time.RFC3339Nano), strconv.Itoa(len(m.byDoc))),
		name:     name,
		dataset:  ds,
		page:     samplewiki.Page{Content: content, UpdatedAt: now},
		meta:     map[string]any{},
		run:      "UNSTART",
		uploaded: true,
	}
	ds.docs = append(ds.docs, doc)
	ds.updated = now
	m.byDoc[doc.id] = doc
	return doc
}

// parseDocuments chunks documents at once (the development parser has no
// queue), so a poll after the parse request finds them DONE. Chunks carry
// the metadata title of the time of parsing, as RAGFlow's do. The
// statistics are recomputed once for the whole request: per document, a
// 1,000-page ingest spent minutes here (bench/INGEST.md).
func (m *model) parseDocuments(docs []*document) {
	for _, doc := range docs {
		doc.chunkContent()
		doc.run = "DONE"
	}
	if len(docs) > 0 {
		m.reindex()
	}
}

// deleteDocuments removes documents and their chunks.
func (m *model) deleteDocuments(ds *dataset, ids []string) {
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
		delete(m.byDoc, id)
	}
	kept := ds.docs[:0]
	for _, d := range ds.docs {
		if !drop[d.id] {
			kept = append(kept, d)
		}
	}
	ds.docs = kept
	m.reindex()
}

// reindex recomputes the collection statistics retrieval scores with after
// chunks were added or removed.
func (m *model) reindex() {
	m.chunks = nil
	for _, ds := range m.datasets {
		for _, d := range ds.docs {
			m.chunks = append(m.chunks, d.chunks...)
		}
	}
	m.idf = inverseDocumentFrequency(m.chunks)
	for _, c := range m.chunks {
		c.norm = m.chunkNorm(c)
	}
}

// progress and progressMsg are what the documents list shows of parsing.
func (d *document) progress() float64 {
	if d.run == "DONE" {
		return 1
	}
	return 0
}

func (d *document) progressMsg() string {
	if d.uploaded && d.run == "DONE" {
		return fmt.Sprintf("Parsed into %d chunks by the development parser.\nTask done", len(d.chunks))
	}
	return ""
}
