package meiliroutes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
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

func (r *meiliFacetRequest) Standard() *protocol.Standard { return &r.std }

func (r *meiliFacetRequest) Validate() error {
	if r.FacetName == nil {
		return meiliCoded(invalid("Missing field `facetName`"), "missing_facet_search_facet_name")
	}
	if !slices.Contains(meiliFacets, *r.FacetName) {
		msg := fmt.Sprintf("Attribute `%s` is not facet-searchable. Available facet-searchable attributes are: `%s`.",
			gateway.CutUTF8(*r.FacetName, 64), strings.Join(meiliFacets, "`, `"))
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
// decided filter (ANDed with the caller's, as on every search route),
// keeps the counts the scope admits (scopedFacets, as on search) and
// offers those whose value starts with facetQuery.
func runMeiliFacetSearch(ctx context.Context, c *gateway.Call) (protocol.Result, error) {
	if _, ok := viewOf(c.Index(), c.PathID()); !ok {
		return nil, indexNotFound(c.PathID(), -1)
	}
	req := c.Request().(*meiliFacetRequest)
	name := *req.FacetName
	p := meili.SearchParams{
		Query:  req.question(),
		Filter: meili.And(meili.Filter(c.Scope()), req.filter),
		// The gate's client cannot send limit 0 (its default); one hit is
		// asked for and not shown. The counts are the same.
		Limit:                1,
		AttributesToRetrieve: []string{"id", "path", "project", "version", "status"},
		Facets:               []string{name},
	}
	resp, err := c.Search(ctx, p)
	if err != nil {
		return nil, err
	}
	kept, dropped := normalizer.MeiliHitsInScope(resp.Hits, c.Scope())
	c.Dropped(dropped)
	b := facetBounds{kept: kept, countHits: countHits(p, len(resp.Hits), dropped), total: max(resp.Total()-dropped, len(kept))}
	dist := scopedFacets([]string{name}, resp.FacetDistribution, c.Scope(), b)
	hits := facetHits(dist[name], derefS(req.FacetQuery))
	return protocol.JSON(meiliFacetResult{FacetHits: hits, FacetQuery: req.FacetQuery, ProcessingTimeMs: resp.ProcessingTimeMs}), nil
}

// facetHits are the values of dist (already scoped) that start with prefix
// (case-folded, the whole value: Meilisearch matches facetQuery as one
// term against the start of a value), in alphabetical order (Meilisearch's
// default sortFacetValuesBy).
func facetHits(dist map[string]int, prefix string) []meiliFacetHit {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	out := []meiliFacetHit{}
	for v, n := range dist {
		if n > 0 && strings.HasPrefix(strings.ToLower(v), prefix) {
			out = append(out, meiliFacetHit{Value: v, Count: n})
		}
	}
	slices.SortFunc(out, func(a, b meiliFacetHit) int { return strings.Compare(a.Value, b.Value) })
	return out
}

// facetBounds is what the gate knows of a search's matches besides the
// backend's counts: the in-scope hits it saw, whether it counts them
// instead of trusting the backend (countHits), and the total the answer
// shows.
type facetBounds struct {
	kept      []meili.Hit
	countHits bool
	total     int
}

// scopedFacets is the facet distribution a caller may see, one entry per
// facet asked (served facets only: the request was validated), whatever
// else the backend sent. Every served facet is a scope attribute (project,
// version, status), so each value can be checked against the decided
// scope; a facet whose values the scope does not decide is not served,
// since its counts could not be checked without the documents.
//
// When the gate counts the hits (countHits: they are every match, or the
// backend ignored the filter), the counts are those of the in-scope hits,
// so the backend's numbers reveal nothing. Otherwise they are the
// backend's counts of the values the scope admits, in the scope's spelling
// (case variants merged), each capped at the total the answer shows: the
// gate pushes the decided filter into the search, so an honest backend
// counts in-scope documents only, and a lying one cannot make a facet show
// more than the total does nor name a value outside the scope.
func scopedFacets(asked []string, dist map[string]map[string]int, eff protocol.Scope, b facetBounds) map[string]map[string]int {
	out := make(map[string]map[string]int, len(asked))
	for _, name := range asked {
		if b.countHits {
			out[name] = hitFacetCounts(b.kept, name, eff)
		} else {
			out[name] = admittedCounts(dist[name], name, eff, b.total)
		}
	}
	return out
}

// hitFacetCounts counts the facet's values among the in-scope hits.
func hitFacetCounts(kept []meili.Hit, name string, eff protocol.Scope) map[string]int {
	out := map[string]int{}
	for _, h := range kept {
		if v, ok := facetScopeValue(name, hitFacetValue(h, name), eff); ok {
			out[v]++
		}
	}
	return out
}

func hitFacetValue(h meili.Hit, name string) string {
	switch name {
	case "project":
		return h.Project
	case "version":
		return h.Version
	case "status":
		return h.Status
	}
	return ""
}

// admittedCounts keeps the backend's counts of admitted values, merged
// under the scope's spelling, each at most total (added without
// overflowing, whatever the backend sent).
func admittedCounts(dist map[string]int, name string, eff protocol.Scope, total int) map[string]int {
	out := map[string]int{}
	for v, n := range dist {
		canon, ok := facetScopeValue(name, v, eff)
		if !ok || n <= 0 || total <= 0 {
			continue
		}
		m := min(n, total)
		out[canon] = min(out[canon], total-m) + m // min(out[canon]+m, total)
	}
	return out
}

// countHits says whether the gate counts the facets of the in-scope hits
// itself rather than trusting the backend's counts: when the hits are
// every match (completeAnswer), or when the backend answered a hit outside
// the decided scope (dropped), which it cannot do if it applied the
// decided filter, so its counts are of documents the caller may not see.
func countHits(p meili.SearchParams, n, dropped int) bool {
	return dropped > 0 || completeAnswer(p, n)
}

// completeAnswer says whether the backend's n hits for p are every match:
// the first page was asked for and fewer hits came back than it holds
// (Meilisearch's default page is 20). The gate then counts what it holds
// instead of trusting the backend's totals and facet counts.
func completeAnswer(p meili.SearchParams, n int) bool {
	if p.Page != nil || p.HitsPerPage != nil {
		page, per := 1, 20
		if p.Page != nil {
			page = *p.Page
		}
		if p.HitsPerPage != nil {
			per = *p.HitsPerPage
		}
		return page == 1 && n < per
	}
	limit := p.Limit
	if limit == 0 {
		limit = 20
	}
	return p.Offset == 0 && n < limit
}

// facetScopeValue is the decided scope's own spelling of a value the
// backend counted, if the scope admits it: a page of another project or
// version, or a working page for a reader who may not see working docs,
// cannot be counted, so its value is never shown even if the backend's
// filter let it through. Values are matched case-folded, as Meilisearch's
// filters match them, and answered as the scope spells them, so no text
// of the backend's reaches the caller.
func facetScopeValue(name, v string, eff protocol.Scope) (string, bool) {
	var admitted []string
	switch name {
	case "status":
		admitted = []string{scope.StatusApproved}
		if eff.IncludeWorkingDocs {
			admitted = append(admitted, scope.StatusWorking)
		}
	case "project":
		admitted = eff.Projects
	case "version":
		admitted = []string{eff.Version}
	}
	i := slices.IndexFunc(admitted, func(a string) bool { return a != "" && strings.EqualFold(a, v) })
	if i < 0 {
		return "", false
	}
	return admitted[i], true
}
