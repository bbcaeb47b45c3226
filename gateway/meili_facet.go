package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// meiliFacetPattern is Meilisearch's search for facet values, which
// InstantSearch's searchForFacetValues calls when a reader types in a
// searchable refinement list.
const meiliFacetPattern = meiliPrefix + "indexes/{indexUid}/facet-search"

// maxMeiliFacetQuery bounds facetQuery: the start of one facet value.
const maxMeiliFacetQuery = 100

// meiliFacetRequest is a facet search as instant-meilisearch sends it: the
// search the refinement list belongs to (q, filter, and the search box's
// other parameters, which do not change the values and are only checked)
// plus the facet and the prefix the reader typed.
type meiliFacetRequest struct {
	meiliQuery
	FacetName            *string `json:"facetName"`
	FacetQuery           *string `json:"facetQuery"`
	ExhaustiveFacetCount *bool   `json:"exhaustiveFacetCount"`
	std                  protocol.Standard
}

func (r *meiliFacetRequest) standard() *protocol.Standard { return &r.std }
func (r *meiliFacetRequest) pages() []string              { return nil }

func (r *meiliFacetRequest) validate() error {
	if r.FacetName == nil {
		return meiliCoded(invalid("Missing field `facetName`"), "missing_facet_search_facet_name")
	}
	if !slices.Contains(meiliFacets, *r.FacetName) {
		msg := fmt.Sprintf("Attribute `%s` is not facet-searchable. Available facet-searchable attributes are: `%s`.",
			cutUTF8(*r.FacetName, 64), strings.Join(meiliFacets, "`, `"))
		return meiliCoded(invalid(msg), "invalid_facet_search_facet_name")
	}
	if q := r.FacetQuery; q != nil && (!utf8.ValidString(*q) || len(*q) > maxMeiliFacetQuery) {
		return meiliCoded(invalid(fmt.Sprintf("facetQuery must be valid UTF-8 of at most %d bytes", maxMeiliFacetQuery)), "invalid_facet_search_facet_query")
	}
	r.std.Question = r.question()
	return r.meiliQuery.validate()
}

// meiliFacetResult is Meilisearch's facet-search answer.
type meiliFacetResult struct {
	FacetHits        []meiliFacetHit `json:"facetHits"`
	FacetQuery       *string         `json:"facetQuery"`
	ProcessingTimeMs int             `json:"processingTimeMs"`
}

type meiliFacetHit struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// runMeiliFacetSearch answers the facet's values among the pages the
// caller may see: the backend contract has no facet-search, so the gate
// asks the backend for the facet's distribution of a search with the
// decided filter (ANDed with the caller's, as on every search route), then
// keeps the values that start with facetQuery and that the scope allows.
func (g *Gateway) runMeiliFacetSearch(ctx context.Context, c *call) (any, error) {
	if c.pathID != g.indexUID(c) {
		return nil, indexNotFound(c.pathID, -1)
	}
	req := c.req.(*meiliFacetRequest)
	name := *req.FacetName
	resp, err := g.search(ctx, c, meili.SearchParams{
		Query:  req.question(),
		Filter: meili.And(meili.Filter(c.decision.Scope), req.filter),
		// The gate's client cannot send limit 0 (its default); one hit is
		// asked for and not shown. The counts are the same.
		Limit:                1,
		AttributesToRetrieve: []string{"id"},
		Facets:               []string{name},
	})
	if err != nil {
		return nil, err
	}
	hits := facetHits(resp.FacetDistribution[name], derefS(req.FacetQuery), func(v string) bool {
		return facetValueInScope(name, v, c.decision.Scope)
	})
	return meiliFacetResult{FacetHits: hits, FacetQuery: req.FacetQuery, ProcessingTimeMs: resp.ProcessingTimeMs}, nil
}

// facetHits are the values of dist that start with prefix (case-folded,
// the whole value: Meilisearch matches facetQuery as one term against the
// start of a value) and that allowed keeps, in alphabetical order
// (Meilisearch's default sortFacetValuesBy).
func facetHits(dist map[string]int, prefix string, allowed func(string) bool) []meiliFacetHit {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	out := []meiliFacetHit{}
	for v, n := range dist {
		if n > 0 && strings.HasPrefix(strings.ToLower(v), prefix) && allowed(v) {
			out = append(out, meiliFacetHit{Value: v, Count: n})
		}
	}
	slices.SortFunc(out, func(a, b meiliFacetHit) int { return strings.Compare(a.Value, b.Value) })
	return out
}

// facetValueInScope checks a value the backend counted against the
// decided scope, as hits are checked on the way back: a page of another
// project or version, or a working page for a reader who may not see
// working docs, cannot be counted, so its value is never shown even if
// the backend's filter let it through.
func facetValueInScope(name, v string, eff protocol.Scope) bool {
	switch name {
	case "status":
		return strings.EqualFold(v, scope.StatusApproved) || (eff.IncludeWorkingDocs && strings.EqualFold(v, scope.StatusWorking))
	case "project":
		return slices.ContainsFunc(eff.Projects, func(p string) bool { return strings.EqualFold(p, v) })
	case "version":
		return strings.EqualFold(v, eff.Version)
	}
	return false
}
