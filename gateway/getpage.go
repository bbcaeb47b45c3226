package gateway

import (
	"context"
	"fmt"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

type getPageRequest struct {
	protocol.GetPageRequest
	normalized []string
}

func (r *getPageRequest) standard() *protocol.Standard { return &r.Standard }
func (r *getPageRequest) pages() []string              { return r.normalized }

// validate accepts exactly one of path and paths (at most MaxPagePaths),
// normalizing each; duplicates are collapsed so a batch reads each page once.
func (r *getPageRequest) validate() error {
	switch {
	case r.Path != "" && len(r.Paths) > 0:
		return invalid("give either path or paths, not both")
	case r.Path == "" && len(r.Paths) == 0:
		return invalid("path or paths is required")
	case len(r.Paths) > protocol.MaxPagePaths:
		return invalid(fmt.Sprintf("paths has more than %d entries", protocol.MaxPagePaths))
	}
	if r.Path != "" {
		p, err := scope.NormalizePath("path", r.Path)
		if err != nil {
			return err
		}
		r.normalized = []string{p}
	}
	seen := map[string]bool{}
	for i, raw := range r.Paths {
		p, err := scope.NormalizePath(fmt.Sprintf("paths[%d]", i), raw)
		if err != nil {
			return err
		}
		if !seen[p] {
			seen[p] = true
			r.normalized = append(r.normalized, p)
		}
	}
	return validateStandard(&r.Standard, false)
}

// runGetPage fetches the requested pages with one search inside the decided
// scope; pages that are not there (or not in scope) are listed as errors.
func (g *Gateway) runGetPage(ctx context.Context, c *call) (any, error) {
	paths := c.req.pages()
	resp, err := g.search(ctx, c, meili.SearchParams{
		Filter: meili.And(meili.Filter(c.decision.Scope), meili.PathsFilter(paths)),
		// Meilisearch compares strings without case, so a case-variant page
		// can match too (and is dropped by the exact check afterwards);
		// room for a few keeps it from crowding out the page asked for.
		Limit: 3 * len(paths),
	})
	if err != nil {
		return nil, err
	}
	pages, errs, dropped := normalizer.Pages(resp.Hits, c.decision.Scope, paths)
	c.rec.Dropped = dropped
	return protocol.PageResult{Pages: nonNil(pages), Errors: nonNil(errs), Audit: c.audit()}, nil
}
