package ingest

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// RAGFlowSync loads pages into RAGFlow: one dataset per project × version ×
// status (Mapping.DatasetName), one document per page carrying the citation
// metadata in meta_fields, parsed before the run ends.
type RAGFlowSync struct {
	Client  *RAGFlowClient
	Mapping *Mapping
	// Concurrency bounds the pages uploaded at once (default 4).
	Concurrency int
	DryRun      bool
	// Progress, when set, hears of every page written (done of total).
	Progress func(done, total int)
}

// held is one document of an owned dataset as the inventory found it.
type held struct {
	datasetID string
	doc       ragDocument
	label     string
}

// plan is what a run will do.
type plan struct {
	put     []putPage           // new and changed pages
	reparse map[string][]docRef // unchanged but not parsed, by dataset id
	drop    map[string][]held   // by dataset id
	report  *Report
}

type putPage struct {
	page      Page
	datasetID string
	old       *held // the document a changed page replaces
}

// Run makes the owned datasets hold exactly pages and returns what changed
// and the catalog. Pages that failed to read keep their documents.
func (s *RAGFlowSync) Run(ctx context.Context, pages []Page, unreadable []Failure) (*Report, *Catalog, error) {
	datasets, created, err := s.resolveDatasets(ctx, pages)
	if err != nil {
		return nil, nil, err
	}
	have, err := s.inventory(ctx, datasets)
	if err != nil {
		return nil, nil, err
	}
	p := s.plan(pages, unreadable, datasets, have)
	p.report.CreatedDatasets = created
	cat := newCatalog(datasets, s.Mapping)
	if s.DryRun {
		return p.report, cat, nil
	}
	s.execute(ctx, p)
	p.report.dropFailed()
	return p.report, cat, nil
}

// resolveDatasets finds every dataset of the catalog by its exact name and
// creates the missing ones (not in a dry run, where they stay ""); it also
// returns the names it created.
func (s *RAGFlowSync) resolveDatasets(ctx context.Context, pages []Page) (map[DatasetKey]string, []string, error) {
	existing, err := s.Client.listDatasets(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("listing datasets: %w", err)
	}
	byName := map[string]string{}
	for _, ds := range existing {
		if _, dup := byName[ds.Name]; !dup {
			byName[ds.Name] = ds.ID
		}
	}
	out := map[DatasetKey]string{}
	var created []string
	for _, k := range s.Mapping.wantedDatasets(pages) {
		name := s.Mapping.DatasetName(k.Project, k.Version, k.Status)
		id, ok := byName[name]
		if !ok && !s.DryRun {
			ds, err := s.Client.createDataset(ctx, name)
			if err != nil {
				return nil, nil, fmt.Errorf("creating dataset %q: %w", name, err)
			}
			if ds.Name != name {
				return nil, nil, fmt.Errorf("creating dataset %q: RAGFlow named it %q (a name differing only in case exists?)", name, ds.Name)
			}
			id = ds.ID
			created = append(created, name)
		}
		out[k] = id
	}
	return out, created, nil
}

// inventory lists the documents of the owned datasets by page key.
// Documents without ingest's metadata (an upload whose metadata step was
// interrupted) are kept under their own key, to be removed.
func (s *RAGFlowSync) inventory(ctx context.Context, datasets map[DatasetKey]string) (map[string]held, error) {
	var ids []string
	for _, id := range datasets {
		if id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	// The datasets are listed at once (Concurrency at a time): a re-run
	// that changes nothing is this listing and no other call.
	lists := make([][]ragDocument, len(ids))
	errs := make([]error, len(ids))
	bounded(s.workers(), len(ids), func(i int) {
		lists[i], errs[i] = s.Client.listDocuments(ctx, ids[i], nil)
	})
	have := map[string]held{}
	for i, id := range ids {
		if errs[i] != nil {
			return nil, fmt.Errorf("listing documents of dataset %s: %w", id, errs[i])
		}
		for _, d := range lists[i] {
			p, _ := d.Meta["path"].(string)
			v, _ := d.Meta["version"].(string)
			loc, _ := d.Meta["locale"].(string)
			key, label := pageKey(v, loc, p), pageLabel(p, v, loc)
			if _, hashed := d.Meta["contentHash"].(string); !hashed || p == "" {
				key, label = "orphan\x00"+d.ID, d.Name+" (no ingest metadata)"
			}
			if _, dup := have[key]; dup {
				// A second document for one page (an upload retried after a
				// lost answer): the first one listed stays, this one goes.
				key, label = "duplicate\x00"+d.ID, d.Name+" (second document of "+label+")"
			}
			have[key] = held{datasetID: id, doc: d, label: label}
		}
	}
	return have, nil
}

func (s *RAGFlowSync) plan(pages []Page, unreadable []Failure, datasets map[DatasetKey]string, have map[string]held) *plan {
	p := &plan{report: &Report{Backend: "ragflow", DryRun: s.DryRun}, reparse: map[string][]docRef{},
		drop: map[string][]held{}}
	for _, pg := range pages {
		key := pg.ID
		target := datasets[DatasetKey{pg.Project, pg.Version, pg.Status}]
		old, ok := have[key]
		delete(have, key)
		switch {
		case !ok:
			p.report.Added = append(p.report.Added, pg.label())
			p.put = append(p.put, putPage{page: pg, datasetID: target})
		case old.doc.Meta["contentHash"] != pg.Hash || old.datasetID != target:
			p.report.Changed = append(p.report.Changed, pg.label())
			p.put = append(p.put, putPage{page: pg, datasetID: target, old: &old})
		case old.doc.Run != "DONE":
			// Uploaded by an interrupted run, or its parse failed: parse again.
			p.report.Changed = append(p.report.Changed, pg.label())
			p.reparse[target] = append(p.reparse[target], docRef{id: old.doc.ID, label: pg.label()})
		default:
			p.report.Unchanged++
		}
	}
	for _, f := range unreadable {
		delete(have, f.id)
	}
	var gone []held
	for _, h := range have {
		gone = append(gone, h)
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].label < gone[j].label })
	for _, h := range gone {
		p.report.Removed = append(p.report.Removed, h.label)
		p.drop[h.datasetID] = append(p.drop[h.datasetID], h)
	}
	return p
}

// execute writes the plan: pages uploaded concurrently (old document
// deleted first, so the name stays free), then one parse call per dataset
// and a wait for it, then the removals.
func (s *RAGFlowSync) execute(ctx context.Context, p *plan) {
	var mu sync.Mutex
	fail := func(label string, err error) {
		mu.Lock()
		p.report.Failures = append(p.report.Failures, Failure{Path: label, Err: err.Error()})
		mu.Unlock()
	}
	uploaded := s.uploadAll(ctx, p.put, fail)
	for ds, refs := range p.reparse {
		uploaded[ds] = append(uploaded[ds], refs...)
	}
	var parsing []string
	for ds := range uploaded {
		parsing = append(parsing, ds)
	}
	bounded(s.workers(), len(parsing), func(i int) {
		s.parseAndWait(ctx, parsing[i], uploaded[parsing[i]], fail)
	})
	for ds, hs := range p.drop {
		ids := make([]string, len(hs))
		for i, h := range hs {
			ids[i] = h.doc.ID
		}
		if err := s.Client.deleteDocuments(ctx, ds, ids); err != nil {
			for _, h := range hs {
				fail(h.label, err)
			}
		}
	}
}

// docRef is an uploaded document awaiting its parse.
type docRef struct{ id, label string }

// workers is the number of requests in flight (Concurrency, default 4).
func (s *RAGFlowSync) workers() int {
	if s.Concurrency <= 0 {
		return 4
	}
	return s.Concurrency
}

// bounded calls fn(0..n-1), at most workers at a time, and waits for all.
func bounded(workers, n int, fn func(i int)) {
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(i)
		})
	}
	wg.Wait()
}

func (s *RAGFlowSync) uploadAll(ctx context.Context, put []putPage, fail func(string, error)) map[string][]docRef {
	workers := s.workers()
	var mu sync.Mutex
	out := map[string][]docRef{}
	done := 0
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for _, pp := range put {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			id, err := s.uploadPage(ctx, pp)
			mu.Lock()
			defer mu.Unlock()
			done++
			if s.Progress != nil {
				s.Progress(done, len(put))
			}
			if err != nil {
				fail(pp.page.label(), err)
				return
			}
			out[pp.datasetID] = append(out[pp.datasetID], docRef{id: id, label: pp.page.label()})
		}()
	}
	wg.Wait()
	return out
}

// uploadPage replaces the page's document: RAGFlow cannot replace a document's
// content in place (docs/backends.md, RAGFlow "Write side"), so delete,
// upload, set the metadata. An upload whose metadata step fails is deleted
// again, so no document without citation metadata stays retrievable.
func (s *RAGFlowSync) uploadPage(ctx context.Context, pp putPage) (string, error) {
	if pp.old != nil {
		if err := s.Client.deleteDocuments(ctx, pp.old.datasetID, []string{pp.old.doc.ID}); err != nil {
			return "", fmt.Errorf("deleting the previous document: %w", err)
		}
	}
	doc, err := s.Client.upload(ctx, pp.datasetID, DocumentName(pp.page), pp.page.Content)
	if err != nil {
		return "", fmt.Errorf("upload: %w", err)
	}
	if err := s.Client.setMeta(ctx, pp.datasetID, doc.ID, pp.page.Meta()); err != nil {
		_ = s.Client.deleteDocuments(ctx, pp.datasetID, []string{doc.ID})
		return "", fmt.Errorf("setting meta_fields: %w", err)
	}
	return doc.ID, nil
}

// DocumentName is the RAGFlow document name of a page: its path flattened ("/"
// → "__": a "/" in a name is not reliable; docs/backends.md, RAGFlow "Write
// side"), keeping the extension RAGFlow detects the type from, within
// RAGFlow's 255 bytes.
func DocumentName(p Page) string {
	name := strings.ReplaceAll(p.Path, "/", "__")
	if p.Locale != "" {
		name = p.Locale + "__" + name // a translation beside its page
	}
	if len(name) <= 255 {
		return name
	}
	ext := path.Ext(name)
	cut := 255 - len(ext) - 17
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut-- // never split a UTF-8 sequence
	}
	return name[:cut] + "~" + p.ID[:16] + ext
}

// Meta is the page's meta_fields: the citation metadata the gate reads back
// from every retrieved chunk, all strings so each key keeps one type
// tenant-wide, and the hash a re-run compares (docs/backends.md, RAGFlow
// "Write side").
func (p *Page) Meta() map[string]string {
	meta := map[string]string{
		"path": p.Path, "url": p.URL, "title": p.Title, "project": p.Project,
		"version": p.Version, "status": p.Status, "contentHash": p.Hash,
	}
	if p.Locale != "" {
		meta["locale"] = p.Locale
	}
	return meta
}
