package gateway

import (
	"context"
	"fmt"
	"slices"

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

// runGetPage fetches the readable pages with one search inside the decided
// scope. A batch answers each path on its own (protocol: seed
// get_document_info): pages outside the scope are listed as forbidden_scope,
// pages that are not there as not_found. Only the pages the policy let
// through are ever named to Meilisearch.
func (g *Gateway) runGetPage(ctx context.Context, c *call) (protocol.Result, error) {
	requested := c.req.pages()
	readable := readablePages(requested, c.decision.Pages)
	if len(readable) == 0 {
		// The shipped policy denies such a batch itself; this holds a
		// policy edit that allows with no readable page to the same answer.
		c.rec.Decision.Allow = false
		return nil, protocol.NewError(protocol.CodeForbiddenScope, "no requested page is inside your scope")
	}
	resp, err := g.search(ctx, c, meili.SearchParams{
		Filter: meili.And(meili.Filter(c.decision.Scope), meili.PathsFilter(readable)),
		// Meilisearch compares strings without case, so a case-variant page
		// can match too (and is dropped by the exact check afterwards);
		// room for a few keeps it from crowding out the page asked for.
		Limit: 3 * len(readable),
	})
	if err != nil {
		return nil, err
	}
	pages, errs, dropped := normalizer.Pages(resp.Hits, c.decision.Scope, readable)
	c.rec.Dropped = dropped
	errs = pageErrors(requested, readable, errs)
	return &protocol.PageResult{Pages: nonNil(pages), Errors: nonNil(errs), Audit: c.audit()}, nil
}

// readablePages are the requested pages the decision lets through, in the
// order asked. A page the decision lists but the caller did not ask for is
// never fetched.
func readablePages(requested, allowed []string) []string {
	var out []string
	for _, p := range requested {
		if slices.Contains(allowed, p) {
			out = append(out, p)
		}
	}
	return out
}

// pageErrors lists, in the order asked, a forbidden_scope entry for each
// requested page that is not readable and the fetch's own error for the
// others.
func pageErrors(requested, readable []string, fetched []protocol.PageError) []protocol.PageError {
	byPath := make(map[string]protocol.PageError, len(fetched))
	for _, e := range fetched {
		byPath[e.Path] = e
	}
	var out []protocol.PageError
	for _, p := range requested {
		if !slices.Contains(readable, p) {
			out = append(out, protocol.PageError{Path: p, Code: protocol.CodeForbiddenScope, Message: "page is outside your scope"})
		} else if e, ok := byPath[p]; ok {
			out = append(out, e)
		}
	}
	return out
}
