package devmeili

import (
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

func (s *Server) handleSearchPost(w http.ResponseWriter, r *http.Request, cred credential) *apiError {
	body, err := readJSONBody(w, r, s.bodyLimit)
	if err != nil {
		return err
	}
	q, err := decodeSearchBody(body)
	if err != nil {
		return err
	}
	return s.search(w, r, q, cred)
}

func (s *Server) handleSearchGet(w http.ResponseWriter, r *http.Request, cred credential) *apiError {
	q, err := decodeSearchParams(r.URL.RawQuery)
	if err != nil {
		return err
	}
	return s.search(w, r, q, cred)
}

// search runs a decoded query in the engine's order: index lookup, then the
// checks that need index settings, then the search itself.
func (s *Server) search(w http.ResponseWriter, r *http.Request, q searchQuery, cred credential) *apiError {
	started := time.Now()
	rec := recordOf(r)
	rec.Query = q.Q
	if q.Filter != nil {
		rec.Filter = jsonText(q.Filter)
	}
	if cred.tenantFilter != nil {
		rec.TenantFilter = jsonText(cred.tenantFilter)
	}
	ix, err := s.lookupIndex(r.PathValue("uid"))
	if err != nil {
		return err
	}
	filter, err := searchFilter(fuseFilters(q.Filter, cred.tenantFilter), ix.uid)
	if err != nil {
		return err
	}
	if err := validateSearch(q, ix.uid); err != nil {
		return err
	}
	ranked := ix.execute(q, filter)
	writeJSON(w, http.StatusOK, buildSearchResponse(ix, q, ranked, started))
	return nil
}

// searchFilter parses the effective filter; errors use invalid_search_filter
// and, when the index settings are involved, the "Index `uid`: " prefix.
func searchFilter(v any, uid string) (filterexpr.Node, *apiError) {
	node, ferr := filterexpr.ParseValue(v)
	if ferr == nil {
		if ferr = checkFilterable(node, filterableAttributes); ferr != nil {
			return nil, newError("invalid_search_filter", "Index `%s`: %s", uid, ferr.Error())
		}
		return node, nil
	}
	if ferr.FeatureGated {
		return nil, newError("feature_not_enabled", "%s", ferr.Error())
	}
	return nil, newError("invalid_search_filter", "%s", ferr.Error())
}

// validateSearch checks the parameters that depend on index settings.
func validateSearch(q searchQuery, uid string) *apiError {
	// The index has no sortable attributes, so the first sort rule is
	// refused either way: for its syntax or for its attribute.
	if len(q.Sort) > 0 {
		s := q.Sort[0]
		attr, dir, _ := strings.Cut(s, ":")
		if dir != "asc" && dir != "desc" {
			return newError("invalid_search_sort", "Invalid syntax for the sort parameter: expected expression ending by `:asc` or `:desc`, found `%s`.", s)
		}
		return newError("invalid_search_sort", "Index `%s`: Attribute `%s` is not sortable. This index does not have configured sortable attributes.", uid, attr)
	}
	for _, pattern := range q.Facets {
		if len(matchingFilterable(pattern)) == 0 {
			return newError("invalid_search_facets", "Invalid facet distribution: Pattern `%s` is not filterable. Available filterable attribute patterns are: %s.", pattern, sortedFilterable())
		}
	}
	if q.Distinct != nil && !contains(filterableAttributes, *q.Distinct) {
		return newError("invalid_search_distinct", "Index `%s`: Attribute `%s` is not filterable and thus, cannot be used as distinct attribute. Available filterable attribute patterns are: %s.", uid, *q.Distinct, sortedFilterable())
	}
	for _, a := range q.AttributesToSearchOn {
		if a != "*" && !contains(searchableAttributes, a) {
			return newError("invalid_search_attributes_to_search_on", "Index `%s`: Attribute `%s` is not searchable. Available searchable attributes are: `%s`.", uid, a, strings.Join(searchableAttributes, ", "))
		}
	}
	switch {
	case q.HybridEmbedder != nil:
		return newError("invalid_search_embedder", "Cannot find embedder with name `%s`.", *q.HybridEmbedder)
	case q.HasVector:
		return newError("missing_search_hybrid", "Passing `vector` as a parameter requires `hybrid` to be present.")
	case q.HasPersonalize:
		return newError("feature_not_enabled", "Search personalization is not available on the wikigate development Meilisearch.")
	}
	return nil
}

func sortedFilterable() string {
	names := append([]string(nil), filterableAttributes...)
	sort.Strings(names)
	return quotedList(names)
}

// matchingFilterable lists the filterable attributes a facet pattern
// ("status", "path*", "*") names.
func matchingFilterable(pattern string) []string {
	var out []string
	for _, a := range filterableAttributes {
		if ok, _ := path.Match(pattern, a); ok {
			out = append(out, a)
		}
	}
	return out
}

// execute filters, ranks, thresholds and de-duplicates; pagination is left
// to the response. A query without words is a placeholder search: every
// matching document in index order, each scoring 1.
func (ix *index) execute(q searchQuery, filter filterexpr.Node) []scored {
	candidates := ix.filterDocs(filter)
	terms := parseQueryTerms(q.Q, ix.stopWordSet())
	var ranked []scored
	if len(terms) == 0 {
		for _, pos := range candidates {
			ranked = append(ranked, scored{pos: pos, score: 1})
		}
	} else {
		ranked = rankDocs(ix, candidates, terms, q.MatchingStrategy, searchMask(q.AttributesToSearchOn))
	}
	if q.RankingScoreThreshold != nil {
		kept := ranked[:0]
		for _, r := range ranked {
			if r.score >= *q.RankingScoreThreshold {
				kept = append(kept, r)
			}
		}
		ranked = kept
	}
	if q.Distinct != nil {
		ranked = ix.distinct(ranked, *q.Distinct)
	}
	return ranked
}

func searchMask(attrs []string) [3]bool {
	var mask [3]bool
	for i, a := range searchableAttributes {
		mask[i] = attrs == nil || contains(attrs, "*") || contains(attrs, a)
	}
	return mask
}

// distinct keeps the best document per value of attr.
func (ix *index) distinct(ranked []scored, attr string) []scored {
	seen := map[string]bool{}
	var out []scored
	for _, r := range ranked {
		v, _ := ix.docs[r.pos].get(attr)
		key := normalizeFacet(jsonText(v))
		if !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}
