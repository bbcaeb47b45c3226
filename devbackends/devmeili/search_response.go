package devmeili

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// searchResponse is the engine's search result (docs/backends.md, Meilisearch
// wire details: Search response): one of the two pagination groups is set;
// facets appear only when asked for.
type searchResponse struct {
	Hits               []orderedObject `json:"hits"`
	Query              string          `json:"query"`
	ProcessingTimeMs   int64           `json:"processingTimeMs"`
	Limit              *int            `json:"limit,omitempty"`
	Offset             *int            `json:"offset,omitempty"`
	EstimatedTotalHits *int            `json:"estimatedTotalHits,omitempty"`
	HitsPerPage        *int            `json:"hitsPerPage,omitempty"`
	Page               *int            `json:"page,omitempty"`
	TotalPages         *int            `json:"totalPages,omitempty"`
	TotalHits          *int            `json:"totalHits,omitempty"`
	FacetDistribution  any             `json:"facetDistribution,omitempty"`
	FacetStats         any             `json:"facetStats,omitempty"`
	RequestUID         string          `json:"requestUid"`
}

func buildSearchResponse(ix *index, q searchQuery, ranked []scored, started time.Time) searchResponse {
	resp := searchResponse{Query: q.Q, RequestUID: newUUIDv7()}
	total := min(len(ranked), maxTotalHits)
	from, to := paginate(&resp, q, total)
	f := formatter{terms: parseQueryTerms(q.Q, ix.stopWordSet()), pre: q.HighlightPreTag, post: q.HighlightPostTag, marker: q.CropMarker}
	resp.Hits = make([]orderedObject, 0, to-from)
	for _, r := range ranked[from:to] {
		resp.Hits = append(resp.Hits, buildHit(ix.docs[r.pos], r, q, f, len(f.terms)))
	}
	if q.FacetsSet {
		resp.FacetDistribution = facetDistribution(ix, ranked, q.Facets)
		resp.FacetStats = map[string]any{}
	}
	resp.ProcessingTimeMs = time.Since(started).Milliseconds()
	return resp
}

// paginate fills the pagination group and returns the hit window. Offsets
// and totals are clamped to maxTotalHits like the engine's.
func paginate(resp *searchResponse, q searchQuery, total int) (from, to int) {
	if q.Page == nil && q.HitsPerPage == nil {
		offset, limit := q.Offset, q.Limit
		resp.Offset, resp.Limit, resp.EstimatedTotalHits = &offset, &limit, &total
		from = min(offset, total)
		return from, from + min(limit, total-from)
	}
	page, perPage := 1, 20
	if q.Page != nil {
		page = *q.Page
	}
	if q.HitsPerPage != nil {
		perPage = *q.HitsPerPage
	}
	pages := 0
	if perPage > 0 {
		pages = (total + perPage - 1) / perPage
	}
	resp.Page, resp.HitsPerPage, resp.TotalPages, resp.TotalHits = &page, &perPage, &pages, &total
	if page == 0 || perPage == 0 || page-1 > total/perPage {
		return 0, 0
	}
	from = min((page-1)*perPage, total)
	return from, from + min(perPage, total-from)
}

// buildHit assembles one hit: retrieved attributes, then _formatted,
// _matchesPosition, _rankingScore and _rankingScoreDetails when asked.
func buildHit(doc orderedObject, r scored, q searchQuery, f formatter, nTerms int) orderedObject {
	hit := selectFields(doc, q.AttributesToRetrieve)
	if len(q.AttributesToHighlight) > 0 || len(q.AttributesToCrop) > 0 {
		hit = append(hit, field{"_formatted", formatted(doc, hit, q, f)})
	}
	if q.ShowMatchesPosition {
		positions := orderedObject{}
		for _, fl := range hit {
			if ps := f.positions(fl.value); len(ps) > 0 {
				positions = append(positions, field{fl.name, ps})
			}
		}
		hit = append(hit, field{"_matchesPosition", positions})
	}
	if q.ShowRankingScore {
		hit = append(hit, field{"_rankingScore", r.score})
	}
	if q.ShowRankingScoreDetails {
		hit = append(hit, field{"_rankingScoreDetails", scoreDetails(r, nTerms)})
	}
	return hit
}

// formatted renders _formatted: every retrieved, highlighted or cropped
// attribute, in document order.
func formatted(doc, retrieved orderedObject, q searchQuery, f formatter) orderedObject {
	crops := cropLengths(q.AttributesToCrop, q.CropLength)
	highlightAll := contains(q.AttributesToHighlight, "*")
	out := orderedObject{}
	for _, fl := range doc {
		_, isRetrieved := retrieved.get(fl.name)
		highlight := highlightAll || contains(q.AttributesToHighlight, fl.name)
		cropLen, crop := crops[fl.name]
		if !crop {
			cropLen, crop = crops["*"]
		}
		if !isRetrieved && !highlight && !crop {
			continue
		}
		if !crop {
			cropLen = -1
		}
		out = append(out, field{fl.name, f.formatValue(fl.value, highlight, cropLen)})
	}
	return out
}

// cropLengths reads "attr" and "attr:length" entries of attributesToCrop.
func cropLengths(attrs []string, def int) map[string]int {
	out := map[string]int{}
	for _, a := range attrs {
		name, n := a, def
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			if v, err := strconv.Atoi(a[i+1:]); err == nil && v >= 0 {
				name, n = a[:i], v
			}
		}
		out[name] = n
	}
	return out
}

// scoreDetails explains the dev ranker with the engine's rule names it
// mirrors (words, typo, attributeRank); it is an approximation.
func scoreDetails(r scored, nTerms int) orderedObject {
	if nTerms == 0 {
		return orderedObject{}
	}
	return orderedObject{
		{"words", orderedObject{{"order", 0}, {"matchingWords", r.words}, {"maxMatchingWords", nTerms},
			{"score", float64(r.words) / float64(nTerms)}}},
		{"typo", orderedObject{{"order", 1}, {"typoCount", r.typos}, {"maxTypoCount", 2 * r.words},
			{"score", 1 - float64(r.typos)/float64(2*r.words+1)}}},
		{"attributeRank", orderedObject{{"order", 2}, {"score", r.attrScore}}},
	}
}

// maxValuesPerFacet is the engine's default faceting.maxValuesPerFacet.
const maxValuesPerFacet = 100

// facetDistribution counts values of the requested facets over every hit.
// Values are grouped case-insensitively and shown as first seen.
func facetDistribution(ix *index, ranked []scored, patterns []string) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, p := range patterns {
		for _, attr := range matchingFilterable(p) {
			counts, shown := map[string]int{}, map[string]string{}
			for _, r := range ranked {
				v, _ := ix.docs[r.pos].get(attr)
				for _, s := range stringValues(v) {
					k := normalizeFacet(s)
					if _, ok := shown[k]; !ok {
						shown[k] = s
					}
					counts[k]++
				}
			}
			out[attr] = topFacetValues(counts, shown)
		}
	}
	return out
}

func topFacetValues(counts map[string]int, shown map[string]string) map[string]int {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]int{}
	for _, k := range keys[:min(len(keys), maxValuesPerFacet)] {
		out[shown[k]] = counts[k]
	}
	return out
}

// newUUIDv7 makes the requestUid the engine returns with every search.
func newUUIDv7() string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	binary.BigEndian.PutUint64(b[0:8], uint64(time.Now().UnixMilli())<<16|uint64(binary.BigEndian.Uint16(b[6:8])))
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
