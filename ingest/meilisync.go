package ingest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"sync"
)

// MeiliSync loads pages into one index.
type MeiliSync struct {
	Client *MeiliClient
	Index  string
	// Projects are the projects this tree owns: only their documents are
	// compared and removed, so other trees sharing the index are untouched.
	Projects []string
	// Languages choose the stop words (Mapping.Languages; default English).
	Languages []string
	// BatchSize is the number of documents per addition (default 100); fewer,
	// larger payloads index faster (docs/backends.md, Meilisearch "Write
	// side").
	BatchSize int
	// Concurrency bounds the additions in flight (default 2).
	Concurrency int
	DryRun      bool
	// Rebuild loads every page into a new index and swaps it in
	// (meilirebuild.go) instead of updating the live index in place.
	Rebuild    bool
	rebuildUID string
}

// Run makes the index hold exactly pages for the owned projects and says
// what it changed. Unchanged pages (same content hash) are not sent; pages
// that failed to read (unreadable) keep whatever the index holds for them.
func (s *MeiliSync) Run(ctx context.Context, pages []Page, unreadable []Failure) (*Report, error) {
	rep := &Report{Backend: "meilisearch", DryRun: s.DryRun}
	have := map[string]indexed{}
	exists, err := s.indexExists(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		if have, err = s.Client.fetchIndexed(ctx, s.Index, s.Projects); err != nil {
			return nil, err
		}
	}
	var put []Page
	for _, p := range pages {
		old, ok := have[p.ID]
		switch {
		case !ok:
			rep.Added = append(rep.Added, p.label())
			put = append(put, p)
		case old.ContentHash != p.Hash:
			rep.Changed = append(rep.Changed, p.label())
			put = append(put, p)
		default:
			rep.Unchanged++
		}
		delete(have, p.ID)
	}
	for _, f := range unreadable {
		delete(have, f.id)
	}
	gone := sortedGone(have)
	for _, d := range gone {
		rep.Removed = append(rep.Removed, d.label())
	}
	if s.DryRun {
		return rep, nil
	}
	if s.Rebuild && exists {
		if err := s.rebuild(ctx, pages); err != nil {
			return nil, err
		}
		rep.RebuiltVia = s.rebuildUID
		return rep, nil
	}
	if err := s.prepare(ctx, s.Index); err != nil {
		return nil, err
	}
	rep.Failures = append(rep.Failures, s.upsert(ctx, s.Index, put)...)
	if err := s.remove(ctx, gone); err != nil {
		for _, d := range gone {
			rep.Failures = append(rep.Failures, Failure{Path: d.label(), Err: err.Error()})
		}
	}
	rep.dropFailed()
	return rep, nil
}

func (s *MeiliSync) indexExists(ctx context.Context) (bool, error) {
	err := s.Client.do(ctx, http.MethodGet, "/indexes/"+url.PathEscape(s.Index), nil, nil)
	var api *APIError
	if errors.As(err, &api) && api.Code == "index_not_found" {
		return false, nil
	}
	return err == nil, err
}

// prepare creates the index and sends the settings before any document, so the
// engine does not re-index documents for a settings change (docs/backends.md,
// Meilisearch "Write side").
func (s *MeiliSync) prepare(ctx context.Context, uid string) error {
	if _, err := s.Client.ensureIndex(ctx, uid); err != nil {
		return err
	}
	langs := s.Languages
	if len(langs) == 0 {
		langs = []string{"en"}
	}
	return s.Client.write(ctx, http.MethodPatch, "/indexes/"+url.PathEscape(uid)+"/settings", IndexSettings(StopWords(langs)))
}

// upsert sends the pages in batches, at most Concurrency at a time, and waits
// on every task: a failed task indexed none of its batch (docs/backends.md,
// Meilisearch "Write side").
func (s *MeiliSync) upsert(ctx context.Context, uid string, pages []Page) []Failure {
	size, workers := s.BatchSize, s.Concurrency
	if size <= 0 {
		size = 100
	}
	if workers <= 0 {
		workers = 2
	}
	var mu sync.Mutex
	var fails []Failure
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for start := 0; start < len(pages); start += size {
		batch := pages[start:min(start+size, len(pages))]
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := s.addBatch(ctx, uid, batch); err != nil {
				mu.Lock()
				for _, p := range batch {
					fails = append(fails, Failure{Path: p.label(), Err: err.Error()})
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fails
}

func (s *MeiliSync) addBatch(ctx context.Context, uid string, batch []Page) error {
	docs := make([]map[string]any, len(batch))
	for i := range batch {
		docs[i] = batch[i].Document()
	}
	return s.Client.write(ctx, http.MethodPost, "/indexes/"+url.PathEscape(uid)+"/documents", docs)
}

func (s *MeiliSync) remove(ctx context.Context, gone []indexed) error {
	if len(gone) == 0 {
		return nil
	}
	ids := make([]string, len(gone))
	for i, d := range gone {
		ids[i] = d.ID
	}
	return s.Client.write(ctx, http.MethodPost, "/indexes/"+url.PathEscape(s.Index)+"/documents/delete-batch", ids)
}

func sortedGone(have map[string]indexed) []indexed {
	out := make([]indexed, 0, len(have))
	for _, d := range have {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].label() < out[j].label() })
	return out
}
