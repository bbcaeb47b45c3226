package meiliroutes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"reflect"
)

// The Meilisearch-compatible routes: a docs site's search box (the
// official meilisearch JS client, instant-meilisearch) points its host at
// /answer/meilisearch and searches through the policy, without a backend
// key: the gate searches its one index with the decided filter, ANDed with
// the caller's own (which can only narrow), and drops out-of-scope hits.
const (
	meiliPrefix        = "/answer/meilisearch/"
	meiliMultiEndpoint = meiliPrefix + "multi-search"
	meiliIndexPattern  = meiliPrefix + "indexes/{indexUid}/search"
)

// Set is the three routes, people's and agents' alike (/answer/*), all the
// search tool (the facet search is a search too), for gateway.Deps.Routes.
// A path under the prefix that is none of them gets Meilisearch's error
// shape naming the routes it serves, not a bare "not found".
func Set() gateway.RouteSet {
	return gateway.RouteSet{
		Prefix:    meiliPrefix,
		NotFound:  "this gate serves only POST /indexes/{indexUid}/search, /indexes/{indexUid}/facet-search and /multi-search under /answer/meilisearch",
		ErrorBody: errorBody,
		ErrorType: reflect.TypeFor[meiliErrorBody](),
		Routes: []gateway.Route{
			searchRoute(meiliIndexPattern, decodeMeili[meiliSearchRequest], runMeiliSearch, reflect.TypeFor[meiliResult]()),
			searchRoute(meiliMultiEndpoint, decodeMeili[meiliMultiRequest], runMeiliMulti, reflect.TypeFor[meiliMultiResponse]()),
			searchRoute(meiliFacetPattern, decodeMeili[meiliFacetRequest], runMeiliFacetSearch, reflect.TypeFor[meiliFacetResult]()),
		},
	}
}

func searchRoute(endpoint string, decode func([]byte) (gateway.Request, error), run func(context.Context, *gateway.Call) (protocol.Result, error), response reflect.Type) gateway.Route {
	return gateway.Route{Endpoint: endpoint, Tool: "search", Action: "read", Answer: true, Decode: decode, Run: run, Response: response}
}

func indexNotFound(uid string, inMulti int) error {
	msg := fmt.Sprintf("Index `%s` not found.", gateway.CutUTF8(uid, 64))
	if inMulti < 0 {
		return meiliCoded(protocol.NewError(protocol.CodeNotFound, msg), "index_not_found")
	}
	return meiliCoded(invalid(fmt.Sprintf("Inside `.queries[%d]`: %s", inMulti, msg)), "index_not_found")
}

func runMeiliSearch(ctx context.Context, c *gateway.Call) (protocol.Result, error) {
	view, ok := viewOf(c.Index(), c.PathID())
	if !ok {
		return nil, indexNotFound(c.PathID(), -1)
	}
	req := c.Request().(*meiliSearchRequest)
	res, err := meiliSearch(ctx, c, &req.meiliQuery, view)
	if err != nil {
		return nil, err
	}
	return protocol.JSON(res), nil
}

// meiliMultiResponse is a non-federated multi-search answer.
type meiliMultiResponse struct {
	Results []meiliResult `json:"results"`
}

// runMeiliMulti checks every query's index before searching any, then runs
// them in order: the whole request fails on the first error, as
// Meilisearch's does.
func runMeiliMulti(ctx context.Context, c *gateway.Call) (protocol.Result, error) {
	qs := *c.Request().(*meiliMultiRequest).Queries
	views := make([]meiliView, len(qs))
	for i, q := range qs {
		view, ok := viewOf(c.Index(), *q.IndexUID)
		if !ok {
			return nil, indexNotFound(*q.IndexUID, i)
		}
		views[i] = view
	}
	out := meiliMultiResponse{Results: make([]meiliResult, 0, len(qs))}
	for i := range qs {
		res, err := meiliSearch(ctx, c, &qs[i].meiliQuery, views[i])
		if err != nil {
			return nil, err
		}
		res.IndexUID = *qs[i].IndexUID
		out.Results = append(out.Results, res)
	}
	return protocol.JSON(out), nil
}

// meiliSearch runs one query inside the decided scope and answers
// Meilisearch's response shape with the in-scope hits only.
func meiliSearch(ctx context.Context, c *gateway.Call, q *meiliQuery, view meiliView) (meiliResult, error) {
	shown := retrievedAttributes(q.AttributesToRetrieve, view.attributes())
	p := meiliParams(q, c.Scope(), view.backendAttributes(shown))
	if view == docsView {
		// The gate builds, highlights and crops the records itself.
		p.AttributesToHighlight, p.AttributesToCrop = nil, nil
		p.CropLength, p.CropMarker, p.HighlightPreTag, p.HighlightPostTag = 0, "", "", ""
	}
	resp, err := c.Search(ctx, p)
	if err != nil {
		return meiliResult{}, err
	}
	kept, dropped := normalizer.MeiliHitsInScope(resp.Hits, c.Scope(), derefS(q.HighlightPreTag), derefS(q.HighlightPostTag))
	c.Dropped(dropped)
	complete := completeAnswer(p, len(resp.Hits))
	if complete {
		// Every match is in hand: the totals are what the gate holds,
		// whatever the backend said (an honest one says the same).
		resp.EstimatedTotalHits, resp.TotalHits = len(resp.Hits), len(resp.Hits)
	}
	formatted := len(q.AttributesToHighlight) > 0 || len(q.AttributesToCrop) > 0
	hits := make([]map[string]any, 0, len(kept))
	if !q.countOnly() { // else the one hit asked for (meiliParams) is not shown
		for _, h := range kept {
			var hit map[string]any
			if view == docsView {
				hit = docsHit(h, q, shown)
			} else {
				hit = meiliHit(h, shown, formatted)
			}
			if q.ShowRankingScore != nil && *q.ShowRankingScore {
				hit["_rankingScore"] = h.RankingScore
			}
			hits = append(hits, hit)
		}
	}
	res := meiliResultOf(q, resp, hits, dropped)
	if len(q.Facets) > 0 {
		b := facetBounds{kept: kept, countHits: countHits(p, len(resp.Hits), dropped), total: meiliShownTotal(res)}
		res.FacetDistribution = scopedFacets(q.Facets, resp.FacetDistribution, c.Scope(), b)
		res.FacetStats = &meiliFacetStats{}
	}
	return res, nil
}

// meiliShownTotal is the total an answer shows, in either pagination.
func meiliShownTotal(res meiliResult) int {
	if res.TotalHits != nil {
		return *res.TotalHits
	}
	return deref(res.EstimatedTotalHits)
}

// meiliFacetStats is facetStats: Meilisearch's minimum and maximum of
// numeric facet values. The served facets (project, version, status) are
// strings, so it is always empty, as Meilisearch answers it for them; the
// backend's is never passed on.
type meiliFacetStats struct{}

// meiliParams is what the gate sends: the decided filter ANDed with the
// caller's, and only the page fields it shows plus those the scope check
// reads.
func meiliParams(q *meiliQuery, eff protocol.Scope, shown []string) meili.SearchParams {
	p := meili.SearchParams{
		Query:                 q.question(),
		Filter:                meili.And(meili.Filter(eff), q.filter),
		AttributesToRetrieve:  union(shown, []string{"path", "project", "version", "status"}),
		AttributesToHighlight: formattable(q.AttributesToHighlight),
		AttributesToCrop:      formattable(q.AttributesToCrop),
		Page:                  q.Page,
		HitsPerPage:           q.HitsPerPage,
		Facets:                union(nil, q.Facets),
		ShowRankingScore:      q.ShowRankingScore != nil && *q.ShowRankingScore,
		RankingScoreThreshold: q.RankingScoreThreshold,
	}
	if q.MatchingStrategy != nil {
		p.MatchingStrategy = *q.MatchingStrategy
	}
	p.Limit, p.Offset = deref(q.Limit), deref(q.Offset)
	if q.countOnly() {
		// The gate's client cannot send limit 0 (it means its default), so
		// it asks for one hit, which meiliSearch does not show; the totals
		// and facet counts are the same.
		one := 1
		p.Limit, p.HitsPerPage = 1, &one
		if !q.pageMode() {
			p.HitsPerPage = nil
		}
	}
	p.CropLength = deref(q.CropLength)
	p.CropMarker, p.HighlightPreTag, p.HighlightPostTag = derefS(q.CropMarker), derefS(q.HighlightPreTag), derefS(q.HighlightPostTag)
	return p
}

// retrievedAttributes are the shown fields: those asked for that the view
// serves (others are ignored, as Meilisearch ignores unknown attributes),
// all of them when none or "*" was asked.
func retrievedAttributes(asked, served []string) []string {
	if len(asked) == 0 || slices.Contains(asked, "*") {
		return served
	}
	var out []string
	for _, a := range served {
		if slices.Contains(asked, a) {
			out = append(out, a)
		}
	}
	return out
}

// formattable keeps the highlight or crop entries ("attr" or "attr:len")
// of fields Meilisearch formats for the gate; "*" means both of them.
func formattable(asked []string) []string {
	var out []string
	for _, a := range asked {
		name, _, _ := strings.Cut(a, ":")
		switch {
		case name == "*":
			out = union(out, meiliFormattable)
		case slices.Contains(meiliFormattable, name) && !slices.Contains(out, a):
			out = append(out, a)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
