package meiliroutes

import (
	"github.com/wikigate/wikigate/meili"
)

// meiliResult is Meilisearch's search response (docs/backends.md, "Meilisearch
// wire details"): hits, query, processingTimeMs and either
// limit/offset/estimatedTotalHits or hitsPerPage/page/totalPages/totalHits;
// indexUid inside a multi-search.
type meiliResult struct {
	IndexUID           string                    `json:"indexUid,omitempty"`
	Hits               []map[string]any          `json:"hits"`
	Query              string                    `json:"query"`
	ProcessingTimeMs   int                       `json:"processingTimeMs"`
	Limit              *int                      `json:"limit,omitempty"`
	Offset             *int                      `json:"offset,omitempty"`
	EstimatedTotalHits *int                      `json:"estimatedTotalHits,omitempty"`
	HitsPerPage        *int                      `json:"hitsPerPage,omitempty"`
	Page               *int                      `json:"page,omitempty"`
	TotalPages         *int                      `json:"totalPages,omitempty"`
	TotalHits          *int                      `json:"totalHits,omitempty"`
	FacetDistribution  map[string]map[string]int `json:"facetDistribution,omitempty"`
	FacetStats         *meiliFacetStats          `json:"facetStats,omitempty"`
}

// meiliResultOf answers one query; totals leave out the hits the gate
// dropped (an estimate either way, as Meilisearch's own).
func meiliResultOf(q *meiliQuery, resp *meili.SearchResponse, hits []map[string]any, dropped int) meiliResult {
	res := meiliResult{
		Hits: hits, Query: q.question(), ProcessingTimeMs: resp.ProcessingTimeMs,
	}
	total := max(resp.Total()-dropped, len(hits))
	if q.pageMode() {
		per := resp.HitsPerPage
		if q.HitsPerPage != nil {
			per = *q.HitsPerPage // as asked: 0 for a count-only query
		}
		pages := 0
		if per > 0 {
			pages = (total + per - 1) / per
		}
		page := resp.Page
		if q.Page != nil {
			page = *q.Page
		}
		res.HitsPerPage, res.Page, res.TotalPages, res.TotalHits = &per, &page, &pages, &total
		return res
	}
	limit, offset := resp.Limit, resp.Offset
	switch {
	case q.Limit != nil:
		limit = *q.Limit // as asked: 0 for a count-only query
	case limit == 0:
		limit = 20
	}
	res.Limit, res.Offset, res.EstimatedTotalHits = &limit, &offset, &total
	return res
}

// meiliHit is one in-scope hit with the shown fields only, and _formatted
// (every shown field, highlighted or cropped where Meilisearch did) when
// the caller asked for highlighting or cropping.
func meiliHit(h meili.Hit, shown []string, formatted bool) map[string]any {
	out := make(map[string]any, len(shown)+1)
	for _, a := range shown {
		out[a] = hitField(h, a)
	}
	if !formatted {
		return out
	}
	f := make(map[string]any, len(shown))
	for _, a := range shown {
		f[a] = formattedField(h, a)
	}
	out["_formatted"] = f
	return out
}

func hitField(h meili.Hit, name string) any {
	switch name {
	case "id":
		return string(h.ID)
	case "path":
		return h.Path
	case "url":
		return h.URL
	case "title":
		return h.Title
	case "project":
		return h.Project
	case "version":
		return h.Version
	case "status":
		return h.Status
	case "headings":
		if h.Headings == nil {
			return []string{}
		}
		return h.Headings
	}
	return h.Content
}

// formattedField is the field as Meilisearch formatted it (title and
// content), else the field itself.
func formattedField(h meili.Hit, name string) any {
	switch {
	case name == "title" && h.Formatted.Title != "":
		return string(h.Formatted.Title)
	case name == "content" && h.Formatted.Content != "":
		return string(h.Formatted.Content)
	}
	return hitField(h, name)
}
