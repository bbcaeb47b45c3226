package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// rebuild loads every page into a new index with the gate's settings, then
// swaps it with the live index and deletes the new name, which then holds the
// old contents (docs/backends.md, Meilisearch "Write side"). Searches see the
// old index until the swap, then the complete new one: never a half-built
// index. API keys and tenant tokens name the live uid, so they keep working. A
// batch that fails aborts the rebuild before the swap; the live index is left
// as it was.
func (s *MeiliSync) rebuild(ctx context.Context, pages []Page) error {
	if err := s.refuseForeignPages(ctx); err != nil {
		return err
	}
	s.rebuildUID = s.Index + "_rebuild_" + strconv.FormatInt(time.Now().Unix(), 10)
	tmp := s.rebuildUID
	if err := s.prepare(ctx, tmp); err != nil {
		return fmt.Errorf("rebuild index %s: %w", tmp, err)
	}
	if fails := s.upsert(ctx, tmp, pages); len(fails) > 0 {
		_ = s.Client.write(ctx, http.MethodDelete, "/indexes/"+url.PathEscape(tmp), nil)
		return fmt.Errorf("rebuild aborted before the swap, %s unchanged: %s: %s", s.Index, fails[0].Path, fails[0].Err)
	}
	swap := []map[string]any{{"indexes": []string{s.Index, tmp}}}
	if err := s.Client.write(ctx, http.MethodPost, "/swap-indexes", swap); err != nil {
		return fmt.Errorf("swapping %s and %s: %w", s.Index, tmp, err)
	}
	if err := s.Client.write(ctx, http.MethodDelete, "/indexes/"+url.PathEscape(tmp), nil); err != nil {
		return fmt.Errorf("%s is live; deleting the old contents in %s: %w", s.Index, tmp, err)
	}
	return nil
}

// refuseForeignPages stops a rebuild of an index that also holds pages of
// projects this tree does not map: the new index would not have them.
func (s *MeiliSync) refuseForeignPages(ctx context.Context) error {
	var resp struct {
		Total int `json:"total"`
	}
	body := map[string]any{"fields": []string{"id"}, "filter": "NOT project IN [" + quoteAll(s.Projects) + "]", "limit": 1}
	if err := s.Client.do(ctx, http.MethodPost, "/indexes/"+url.PathEscape(s.Index)+"/documents/fetch", body, &resp); err != nil {
		return err
	}
	if resp.Total > 0 {
		return fmt.Errorf("--rebuild: %s holds %d document(s) of projects this mapping does not list; a rebuild would drop them", s.Index, resp.Total)
	}
	return nil
}
