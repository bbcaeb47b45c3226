package meiliroutes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
)

// meiliQuery is one Meilisearch search as a docs search box sends it
// (docs/backends.md, "Meilisearch wire details"): the subset the
// Meilisearch-compatible routes accept. Any other field is refused (strict
// JSON) with the list of these.
type meiliQuery struct {
	Q                     *string  `json:"q"`
	Limit                 *int     `json:"limit"`
	Offset                *int     `json:"offset"`
	HitsPerPage           *int     `json:"hitsPerPage"`
	Page                  *int     `json:"page"`
	AttributesToRetrieve  []string `json:"attributesToRetrieve"`
	AttributesToHighlight []string `json:"attributesToHighlight"`
	AttributesToCrop      []string `json:"attributesToCrop"`
	CropLength            *int     `json:"cropLength"`
	CropMarker            *string  `json:"cropMarker"`
	HighlightPreTag       *string  `json:"highlightPreTag"`
	HighlightPostTag      *string  `json:"highlightPostTag"`
	Filter                any      `json:"filter"`
	Facets                []string `json:"facets"`
	// Sent by current meilisearch-js and instant-meilisearch (docs/docs-sites.md,
	// Search boxes: accepted search parameters).
	Sort                  []string `json:"sort"`
	MatchingStrategy      *string  `json:"matchingStrategy"`
	ShowRankingScore      *bool    `json:"showRankingScore"`
	RankingScoreThreshold *float64 `json:"rankingScoreThreshold"`
	filter                string   // the caller's filter, parsed and rendered again
}

// meiliSupported names the accepted fields in refusals of unknown ones.
const meiliSupported = "q, limit, offset, hitsPerPage, page, attributesToRetrieve, attributesToHighlight, " +
	"attributesToCrop, cropLength, cropMarker, highlightPreTag, highlightPostTag, filter, facets, sort, " +
	"matchingStrategy, showRankingScore, rankingScoreThreshold"

// Bounds of a docs search box's query: a page of results, not an export.
const (
	maxMeiliLimit      = 100
	maxMeiliOffset     = 1000
	maxMeiliCropLength = 200
	maxMeiliTagBytes   = 64
	maxMeiliAttributes = 16
	maxMeiliQueries    = 10
)

// meiliAttributes are the page fields these routes show; the index's other
// fields (pathPrefixes, anything added later) never leave the gate.
var meiliAttributes = []string{"id", "path", "url", "title", "project", "version", "status", "headings", "content"}

// meiliFormattable are the fields Meilisearch highlights or crops for us.
var meiliFormattable = []string{"title", "content"}

// meiliFacets are the attributes a caller may ask facet counts of.
var meiliFacets = []string{"project", "version", "status"}

// pageMode: page or hitsPerPage was sent, so Meilisearch paginates by
// page and ignores limit and offset.
func (q *meiliQuery) pageMode() bool { return q.Page != nil || q.HitsPerPage != nil }

// countOnly: a query for totals and facet counts without hits (limit 0, or
// hitsPerPage 0 in page mode), as InstantSearch sends for each refined
// facet of a refinement list.
func (q *meiliQuery) countOnly() bool {
	if q.pageMode() {
		return q.HitsPerPage != nil && *q.HitsPerPage == 0
	}
	return q.Limit != nil && *q.Limit == 0
}

func (q *meiliQuery) question() string {
	if q.Q == nil {
		return ""
	}
	return strings.TrimSpace(*q.Q)
}

// validate checks the numbers, names and tags, and parses the filter.
func (q *meiliQuery) validate() error {
	if err := gateway.CheckQuestion(q.question(), false); err != nil {
		return err
	}
	checks := []error{
		inRange("limit", q.Limit, 0, maxMeiliLimit),
		inRange("offset", q.Offset, 0, maxMeiliOffset),
		inRange("hitsPerPage", q.HitsPerPage, 0, maxMeiliLimit),
		inRange("page", q.Page, 0, maxMeiliOffset),
		inRange("cropLength", q.CropLength, 1, maxMeiliCropLength),
		shortTag("cropMarker", q.CropMarker),
		shortTag("highlightPreTag", q.HighlightPreTag),
		shortTag("highlightPostTag", q.HighlightPostTag),
		fewNames("attributesToRetrieve", q.AttributesToRetrieve),
		fewNames("attributesToHighlight", q.AttributesToHighlight),
		fewNames("attributesToCrop", q.AttributesToCrop),
		facetNames(q.Facets),
		sortNames(q.Sort),
		matchingStrategy(q.MatchingStrategy),
		rankingScoreThreshold(q.RankingScoreThreshold),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	f, err := meili.ClientFilter(q.Filter)
	if err != nil {
		return invalid(err.Error())
	}
	q.filter = f
	return nil
}

func inRange(name string, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return invalid(fmt.Sprintf("%s must be between %d and %d", name, lo, hi))
	}
	return nil
}

func shortTag(name string, v *string) error {
	if v != nil && len(*v) > maxMeiliTagBytes {
		return invalid(fmt.Sprintf("%s is longer than %d bytes", name, maxMeiliTagBytes))
	}
	return nil
}

func fewNames(name string, vs []string) error {
	if len(vs) > maxMeiliAttributes {
		return invalid(fmt.Sprintf("%s has more than %d entries", name, maxMeiliAttributes))
	}
	return nil
}

// facetNames refuses facets outside the served list as Meilisearch refuses
// an attribute that is not filterable: the gate can check the values of
// these only (they are scope attributes), so it counts no other.
func facetNames(vs []string) error {
	for _, v := range vs {
		if !slices.Contains(meiliFacets, v) {
			msg := fmt.Sprintf("Invalid facet distribution, attribute `%s` is not filterable. The available filterable attributes are `%s`.",
				gateway.CutUTF8(v, 64), strings.Join(meiliFacets, ", "))
			return meiliCoded(invalid(msg), "invalid_search_facets")
		}
	}
	return nil
}

// meiliSortable are the attributes a sort may name: the page index's
// sortable attributes, which it has none of (ingest's IndexSettings), so
// every sort is refused as Meilisearch refuses it on such an index, before
// any backend call, rather than failing there as search_unavailable.
var meiliSortable []string

// sortNames checks each sort expression ("attribute:asc" or ":desc") as
// Meilisearch does: its syntax, then that the attribute is sortable.
func sortNames(exprs []string) error {
	for _, e := range exprs {
		name, dir, _ := cutLast(e, ":")
		if dir != "asc" && dir != "desc" {
			msg := fmt.Sprintf("Invalid syntax for the sort parameter: expected expression ending by `:asc` or `:desc`, found `%s`.", gateway.CutUTF8(e, 64))
			return meiliCoded(invalid(msg), "invalid_search_sort")
		}
		if !slices.Contains(meiliSortable, name) {
			msg := fmt.Sprintf("Attribute `%s` is not sortable. This index does not have configured sortable attributes.", gateway.CutUTF8(name, 64))
			if len(meiliSortable) > 0 {
				msg = fmt.Sprintf("Attribute `%s` is not sortable. Available sortable attributes are: `%s`.", gateway.CutUTF8(name, 64), strings.Join(meiliSortable, ", "))
			}
			return meiliCoded(invalid(msg), "invalid_search_sort")
		}
	}
	return nil
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// meiliMatchingStrategies are Meilisearch's values of matchingStrategy.
var meiliMatchingStrategies = []string{"last", "all", "frequency"}

func matchingStrategy(v *string) error {
	if v != nil && !slices.Contains(meiliMatchingStrategies, *v) {
		msg := fmt.Sprintf("Unknown value `%s` at `.matchingStrategy`: expected one of `last`, `all`, `frequency`", gateway.CutUTF8(*v, 64))
		return meiliCoded(invalid(msg), "invalid_search_matching_strategy")
	}
	return nil
}

func rankingScoreThreshold(v *float64) error {
	if v != nil && !(*v >= 0 && *v <= 1) {
		msg := "Invalid value at `.rankingScoreThreshold`: the value of `rankingScoreThreshold` is invalid, expected a float between `0.0` and `1.0`."
		return meiliCoded(invalid(msg), "invalid_search_ranking_score_threshold")
	}
	return nil
}

// meiliSearchRequest is POST /answer/meilisearch/indexes/{indexUid}/search.
type meiliSearchRequest struct {
	meiliQuery
	std protocol.Standard
}

func (r *meiliSearchRequest) Standard() *protocol.Standard { return &r.std }

func (r *meiliSearchRequest) Validate() error {
	r.std.Question = r.question()
	return r.meiliQuery.validate()
}

// meiliMultiQuery is one query of a multi-search: a search and its index.
type meiliMultiQuery struct {
	IndexUID *string `json:"indexUid"`
	meiliQuery
}

// meiliMultiRequest is POST /answer/meilisearch/multi-search (the
// non-federated form: one result per query, in order).
type meiliMultiRequest struct {
	Queries *[]meiliMultiQuery `json:"queries"`
	std     protocol.Standard
}

func (r *meiliMultiRequest) Standard() *protocol.Standard { return &r.std }

// Validate checks every query; the audit keeps the first query's text.
func (r *meiliMultiRequest) Validate() error {
	if r.Queries == nil {
		return invalid("Missing field `queries`")
	}
	qs := *r.Queries
	if len(qs) > maxMeiliQueries {
		return invalid(fmt.Sprintf("queries has more than %d entries", maxMeiliQueries))
	}
	for i := range qs {
		if qs[i].IndexUID == nil {
			return meiliCoded(invalid(fmt.Sprintf("Inside `.queries[%d]`: Missing field `indexUid`", i)), "missing_index_uid")
		}
		if err := qs[i].meiliQuery.validate(); err != nil {
			return inQuery(i, err)
		}
	}
	if len(qs) > 0 {
		r.std.Question = qs[0].question()
	}
	return nil
}

// inQuery names the multi-search query an error is about, as Meilisearch
// does, keeping Meilisearch's code when the error has one.
func inQuery(i int, err error) error {
	wrapped := invalid(fmt.Sprintf("Inside `.queries[%d]`: %s", i, protocol.AsError(err).Message))
	var mc meiliCodedError
	if errors.As(err, &mc) {
		return meiliCoded(wrapped, mc.code)
	}
	return wrapped
}

// decodeMeili decodes strictly like every route, and names the supported
// fields when the caller sent one these routes do not take.
func decodeMeili[T any, P interface {
	*T
	gateway.Request
}](body []byte) (gateway.Request, error) {
	p := P(new(T))
	err := protocol.Decode(body, p)
	if err == nil {
		return p, nil
	}
	pe := protocol.AsError(err)
	if strings.Contains(pe.Message, "unknown field") {
		msg := pe.Message + "; supported search parameters: " + meiliSupported + " (and indexUid in multi-search queries; facetName, facetQuery, exhaustiveFacetCount in a facet-search)"
		if strings.Contains(pe.Message, `"attributesToSnippet"`) {
			// InstantSearch's name, which instant-meilisearch translates.
			msg += "; Meilisearch's name for attributesToSnippet is attributesToCrop (\"content:20\" or \"content\" with cropLength)"
		}
		return nil, invalid(msg)
	}
	return nil, err
}
