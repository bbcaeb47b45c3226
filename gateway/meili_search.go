package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
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

// meiliRoutes are the three routes, people's and agents' alike
// (/answer/*), all the search tool: the facet search is a search too.
func (g *Gateway) meiliRoutes() []route {
	return []route{
		{endpoint: meiliIndexPattern, tool: "search", action: "read", answer: true, meili: true,
			decode: decodeMeili[meiliSearchRequest], run: g.runMeiliSearch},
		{endpoint: meiliMultiEndpoint, tool: "search", action: "read", answer: true, meili: true,
			decode: decodeMeili[meiliMultiRequest], run: g.runMeiliMulti},
		{endpoint: meiliFacetPattern, tool: "search", action: "read", answer: true, meili: true,
			decode: decodeMeili[meiliFacetRequest], run: g.runMeiliFacetSearch},
	}
}

// meiliIndexRoutes are the routes under indexes/{indexUid}/, by the last
// segment of their path.
var meiliIndexRoutes = map[string]string{"search": meiliIndexPattern, "facet-search": meiliFacetPattern}

// matchMeiliIndex finds /answer/meilisearch/indexes/{indexUid}/search or
// …/facet-search: the route's pattern and the uid (checked against the
// gate's index when the call runs).
func matchMeiliIndex(path string) (pattern, uid string, ok bool) {
	rest, ok := strings.CutPrefix(path, meiliPrefix+"indexes/")
	if !ok {
		return "", "", false
	}
	uid, last, ok := strings.Cut(rest, "/")
	pattern, known := meiliIndexRoutes[last]
	return pattern, uid, ok && known && uid != ""
}

// indexUID is the one index callers may name: the gate's own.
func (g *Gateway) indexUID(c *call) string {
	if g.cfg.SearchIndex != "" {
		return g.cfg.SearchIndex
	}
	return c.decision.Index
}

func indexNotFound(uid string, inMulti int) error {
	msg := fmt.Sprintf("Index `%s` not found.", cutUTF8(uid, 64))
	if inMulti < 0 {
		return meiliCoded(protocol.NewError(protocol.CodeNotFound, msg), "index_not_found")
	}
	return meiliCoded(invalid(fmt.Sprintf("Inside `.queries[%d]`: %s", inMulti, msg)), "index_not_found")
}

func (g *Gateway) runMeiliSearch(ctx context.Context, c *call) (any, error) {
	view, ok := g.viewOf(c, c.pathID)
	if !ok {
		return nil, indexNotFound(c.pathID, -1)
	}
	req := c.req.(*meiliSearchRequest)
	return g.meiliSearch(ctx, c, &req.meiliQuery, view)
}

// meiliMultiResponse is a non-federated multi-search answer.
type meiliMultiResponse struct {
	Results []meiliResult `json:"results"`
}

// runMeiliMulti checks every query's index before searching any, then runs
// them in order: the whole request fails on the first error, as
// Meilisearch's does.
func (g *Gateway) runMeiliMulti(ctx context.Context, c *call) (any, error) {
	qs := *c.req.(*meiliMultiRequest).Queries
	views := make([]meiliView, len(qs))
	for i, q := range qs {
		view, ok := g.viewOf(c, *q.IndexUID)
		if !ok {
			return nil, indexNotFound(*q.IndexUID, i)
		}
		views[i] = view
	}
	out := meiliMultiResponse{Results: make([]meiliResult, 0, len(qs))}
	for i := range qs {
		res, err := g.meiliSearch(ctx, c, &qs[i].meiliQuery, views[i])
		if err != nil {
			return nil, err
		}
		res.IndexUID = *qs[i].IndexUID
		out.Results = append(out.Results, res)
	}
	return out, nil
}

// meiliSearch runs one query inside the decided scope and answers
// Meilisearch's response shape with the in-scope hits only.
func (g *Gateway) meiliSearch(ctx context.Context, c *call, q *meiliQuery, view meiliView) (meiliResult, error) {
	shown := retrievedAttributes(q.AttributesToRetrieve, view.attributes())
	p := meiliParams(q, c.decision.Scope, view.backendAttributes(shown))
	if view == docsView {
		// The gate builds, highlights and crops the records itself.
		p.AttributesToHighlight, p.AttributesToCrop = nil, nil
		p.CropLength, p.CropMarker, p.HighlightPreTag, p.HighlightPostTag = 0, "", "", ""
	}
	resp, err := g.search(ctx, c, p)
	if err != nil {
		return meiliResult{}, err
	}
	kept, dropped := normalizer.MeiliHitsInScope(resp.Hits, c.decision.Scope, derefS(q.HighlightPreTag), derefS(q.HighlightPostTag))
	c.rec.Dropped += dropped
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
		res.FacetDistribution = scopedFacets(q.Facets, resp.FacetDistribution, c.decision.Scope, b)
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
