package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Options is one `wikigate ingest` run: a tree, its mapping, and the
// backends to load it into (a nil backend is skipped).
type Options struct {
	Src     string
	Mapping *Mapping
	// Layout is the tree's layout; "" detects it (DetectLayout).
	Layout  Layout
	Meili   *MeiliSync
	RAGFlow *RAGFlowSync
}

// Result is what a run did: one report per backend (the tree's unreadable
// pages are failures of each) and, when RAGFlow was loaded, the catalog.
type Result struct {
	// Layout is the layout the tree was read as.
	Layout Layout
	// Pages counts the pages read (failures not included).
	Pages int
	// Read holds those pages, so the caller can record their URLs for the
	// gate (the mapping's url.table) from the same reading.
	Read    []Page
	Reports []*Report
	Catalog *Catalog
	// NewDatasets is true when RAGFlow datasets were created: the policy's
	// catalog must be updated.
	NewDatasets bool
	// Warnings name mapping URL rules that differ from the site's
	// (SiteWarnings).
	Warnings []string
}

// Failed counts the pages that failed in any backend (an unreadable page
// fails in each report but is one page).
func (r *Result) Failed() int {
	paths := map[string]bool{}
	for _, rep := range r.Reports {
		for _, f := range rep.Failures {
			paths[f.Path] = true
		}
	}
	return len(paths)
}

// Run reads the tree once and loads it into both backends at once (each
// waits on its own server). A backend that cannot be reached at all (an
// error, not a page failure) does not stop the other; both errors are
// returned together.
//
// A run is resumable by re-running it: every step compares with what the
// backend holds (content hashes, parse state), so an interrupted run's
// finished pages are skipped, its half-written ones redone.
func Run(ctx context.Context, o Options) (*Result, error) {
	pages, unreadable, layout, err := ReadTreeAs(o.Src, o.Mapping, o.Layout)
	if err != nil {
		return nil, err
	}
	res := &Result{Layout: layout, Pages: len(pages), Read: pages,
		Warnings: SiteWarnings(os.DirFS(o.Src), layout, o.Mapping)}
	var meiliRep, ragRep *Report
	var cat *Catalog
	var meiliErr, ragErr error
	var wg sync.WaitGroup
	if o.Meili != nil {
		wg.Go(func() {
			if meiliRep, meiliErr = o.Meili.Run(ctx, pages, unreadable); meiliErr != nil {
				meiliErr = fmt.Errorf("meilisearch %s: %w", o.Meili.Client.URL, meiliErr)
			}
		})
	}
	if o.RAGFlow != nil {
		wg.Go(func() {
			if ragRep, cat, ragErr = o.RAGFlow.Run(ctx, pages, unreadable); ragErr != nil {
				ragErr = fmt.Errorf("ragflow %s: %w", o.RAGFlow.Client.URL, ragErr)
			}
		})
	}
	wg.Wait()
	for _, rep := range []*Report{meiliRep, ragRep} {
		if rep != nil {
			rep.Failures = append(append([]Failure(nil), unreadable...), rep.Failures...)
			res.Reports = append(res.Reports, rep)
		}
	}
	if ragRep != nil {
		if o.Meili != nil {
			cat.Index = o.Meili.Index
		}
		res.Catalog = cat
		res.NewDatasets = len(ragRep.CreatedDatasets) > 0
	}
	return res, errors.Join(meiliErr, ragErr)
}
