package gateway

import (
	"context"
	"fmt"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/retrieval"
	"github.com/wikigate/wikigate/scope"
)

type searchRequest struct{ protocol.SearchRequest }

func (r *searchRequest) standard() *protocol.Standard { return &r.Standard }
func (r *searchRequest) pages() []string              { return nil }

func (r *searchRequest) validate() error {
	if r.Limit < 0 || r.Limit > protocol.MaxSearchLimit {
		return invalid(fmt.Sprintf("limit must be between 1 and %d", protocol.MaxSearchLimit))
	}
	if r.Limit == 0 {
		r.Limit = protocol.DefaultLimit
	}
	return validateStandard(&r.Standard, true)
}

// searchAttributes are the page fields a search hit needs; page content and
// headings stay out of search responses (the snippet comes from the crop in
// _formatted, which repeats every retrieved field: fewer fields, smaller
// bodies).
var searchAttributes = []string{"id", "path", "url", "title", "project", "version", "status"}

// runSearch searches Meilisearch inside the decided scope and re-checks every
// hit on the way back. A question goes as its keywords (retrieval.SearchText).
func (g *Gateway) runSearch(ctx context.Context, c *call) (protocol.Result, error) {
	req := c.req.(*searchRequest)
	resp, err := g.search(ctx, c, meili.SearchParams{
		Query:                retrieval.SearchText(req.Question),
		Filter:               meili.Filter(c.decision.Scope),
		Limit:                req.Limit,
		AttributesToRetrieve: searchAttributes,
		AttributesToCrop:     []string{"content"},
		CropLength:           30,
		ShowRankingScore:     true,
	})
	if err != nil {
		return nil, err
	}
	hits, dropped := normalizer.SearchHits(resp.Hits, c.decision.Scope)
	c.rec.Dropped = dropped
	total := resp.Total() - dropped
	return &protocol.SearchResult{Hits: nonNil(hits), Total: max(total, len(hits)), Audit: c.audit()}, nil
}

// search calls Meilisearch, records the call and maps failures to the
// protocol's search_unavailable.
func (g *Gateway) search(ctx context.Context, c *call, p meili.SearchParams) (*meili.SearchResponse, error) {
	start := g.now()
	resp, err := g.deps.Search.Search(ctx, p)
	status := 200
	if err != nil {
		me, ok := err.(*meili.Error)
		if !ok {
			me = &meili.Error{Kind: meili.Unreachable, Detail: err.Error()}
		}
		c.rec.AddBackend("meilisearch", me.HTTPStatus, g.now().Sub(start), me)
		return nil, me.ProtocolError()
	}
	c.rec.AddBackend("meilisearch", status, g.now().Sub(start), nil)
	c.rec.UnsafeURLsDropped += normalizer.DropUnsafeHitURLs(resp.Hits)
	return resp, nil
}

func (c *call) audit() protocol.Audit {
	caller := c.principal.ID
	if c.principal.Anonymous || caller == "" {
		caller = "anonymous"
	}
	return protocol.Audit{RequestID: c.reqID, Caller: caller, Scope: scope.String(c.decision.Scope), SessionID: c.rec.SessionID}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
