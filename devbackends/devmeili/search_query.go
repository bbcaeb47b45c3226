package devmeili

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// searchQuery is a decoded search request (docs/backends.md, Meilisearch wire
// details: Search request), POST body or GET parameters alike.
type searchQuery struct {
	Q                       string
	Offset, Limit           int
	Page, HitsPerPage       *int
	Filter                  any // string, []any or nil, as sent
	Facets                  []string
	FacetsSet               bool
	AttributesToRetrieve    []string // nil means every attribute
	AttributesToCrop        []string
	CropLength              int
	CropMarker              string
	AttributesToHighlight   []string
	HighlightPreTag         string
	HighlightPostTag        string
	ShowMatchesPosition     bool
	ShowRankingScore        bool
	ShowRankingScoreDetails bool
	Sort                    []string
	Distinct                *string
	MatchingStrategy        string
	AttributesToSearchOn    []string
	RankingScoreThreshold   *float64
	HybridEmbedder          *string
	HasVector               bool
	HasPersonalize          bool
}

func defaultSearchQuery() searchQuery {
	return searchQuery{
		Limit: 20, CropLength: 10, CropMarker: "…",
		HighlightPreTag: "<em>", HighlightPostTag: "</em>", MatchingStrategy: "last",
	}
}

// searchFieldNames lists every field the engine accepts, in the order its
// "Unknown field" message names them.
var searchFieldNames = []string{"q", "vector", "media", "offset", "limit", "page", "hitsPerPage",
	"attributesToRetrieve", "retrieveVectors", "attributesToCrop", "cropLength", "attributesToHighlight",
	"showMatchesPosition", "showRankingScore", "showRankingScoreDetails", "showPerformanceDetails",
	"filter", "sort", "distinct", "facets", "highlightPreTag", "highlightPostTag", "cropMarker",
	"matchingStrategy", "attributesToSearchOn", "rankingScoreThreshold", "locales", "personalize",
	"useNetwork", "hybrid"}

// location names where a value came from, because the engine words its
// messages differently for a body field and a query parameter.
type location struct {
	name       string
	param      bool
	codePrefix string // "" means "invalid_search_"
}

func (l location) code() string {
	switch {
	case l.codePrefix != "":
		return l.codePrefix + snakeCase(l.name)
	case l.name == "hybrid":
		return "invalid_search_hybrid_query"
	}
	return "invalid_search_" + snakeCase(l.name)
}

func (l location) typeError(expected string, v any) *apiError {
	return newError(l.code(), "Invalid value type at `.%s`: expected %s, but found %s", l.name, expected, describeValue(v))
}

func (l location) invalidValue(detail string) *apiError {
	if l.param {
		return newError(l.code(), "Invalid value in parameter `%s`: %s", l.name, detail)
	}
	return newError(l.code(), "Invalid value at `.%s`: %s", l.name, detail)
}

func (l location) unknownValue(v string, allowed []string) *apiError {
	if l.param {
		return newError(l.code(), "Unknown value `%s` for parameter `%s`: expected one of %s", v, l.name, quotedList(allowed))
	}
	return newError(l.code(), "Unknown value `%s` at `.%s`: expected one of %s", v, l.name, quotedList(allowed))
}

func snakeCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// decodeSearchBody decodes a POST search body, reporting the first bad field.
func decodeSearchBody(body []byte) (searchQuery, *apiError) {
	q := defaultSearchQuery()
	members, err := decodeObject(body)
	if err != nil {
		return q, err
	}
	for _, m := range members {
		set, ok := searchSetters[m.key]
		if !ok {
			return q, newError("bad_request", "Unknown field `%s`: expected one of %s", m.key, quotedList(searchFieldNames))
		}
		if err := set(&q, m.value, location{name: m.key}); err != nil {
			return q, err
		}
	}
	return q, nil
}

type searchSetter func(q *searchQuery, v any, loc location) *apiError

var searchSetters map[string]searchSetter

func init() {
	searchSetters = map[string]searchSetter{
		"q":           setQ,
		"offset":      func(q *searchQuery, v any, l location) (e *apiError) { q.Offset, e = asUint(v, l); return },
		"limit":       func(q *searchQuery, v any, l location) (e *apiError) { q.Limit, e = asUint(v, l); return },
		"page":        func(q *searchQuery, v any, l location) (e *apiError) { q.Page, e = asOptUint(v, l); return },
		"hitsPerPage": func(q *searchQuery, v any, l location) (e *apiError) { q.HitsPerPage, e = asOptUint(v, l); return },
		"cropLength":  func(q *searchQuery, v any, l location) (e *apiError) { q.CropLength, e = asUint(v, l); return },
		"filter":      func(q *searchQuery, v any, _ location) *apiError { q.Filter = v; return nil },
		"attributesToRetrieve": func(q *searchQuery, v any, l location) (e *apiError) {
			q.AttributesToRetrieve, e = asStringList(v, l)
			return
		},
		"attributesToCrop": func(q *searchQuery, v any, l location) (e *apiError) {
			q.AttributesToCrop, e = asStringList(v, l)
			return
		},
		"attributesToHighlight": func(q *searchQuery, v any, l location) (e *apiError) {
			q.AttributesToHighlight, e = asStringList(v, l)
			return
		},
		"attributesToSearchOn": func(q *searchQuery, v any, l location) (e *apiError) {
			q.AttributesToSearchOn, e = asStringList(v, l)
			return
		},
		"sort":                func(q *searchQuery, v any, l location) (e *apiError) { q.Sort, e = asStringList(v, l); return },
		"locales":             func(_ *searchQuery, v any, l location) (e *apiError) { _, e = asStringList(v, l); return },
		"facets":              setFacets,
		"cropMarker":          func(q *searchQuery, v any, l location) (e *apiError) { q.CropMarker, e = asString(v, l); return },
		"highlightPreTag":     func(q *searchQuery, v any, l location) (e *apiError) { q.HighlightPreTag, e = asString(v, l); return },
		"highlightPostTag":    func(q *searchQuery, v any, l location) (e *apiError) { q.HighlightPostTag, e = asString(v, l); return },
		"showMatchesPosition": func(q *searchQuery, v any, l location) (e *apiError) { q.ShowMatchesPosition, e = asBool(v, l); return },
		"showRankingScore":    func(q *searchQuery, v any, l location) (e *apiError) { q.ShowRankingScore, e = asBool(v, l); return },
		"showRankingScoreDetails": func(q *searchQuery, v any, l location) (e *apiError) {
			q.ShowRankingScoreDetails, e = asBool(v, l)
			return
		},
		"showPerformanceDetails": func(_ *searchQuery, v any, l location) (e *apiError) { _, e = asBool(v, l); return },
		"retrieveVectors":        func(_ *searchQuery, v any, l location) (e *apiError) { _, e = asBool(v, l); return },
		"useNetwork":             func(_ *searchQuery, v any, l location) (e *apiError) { _, e = asBool(v, l); return },
		"distinct":               setDistinct,
		"matchingStrategy":       setMatchingStrategy,
		"rankingScoreThreshold":  setRankingScoreThreshold,
		"hybrid":                 setHybrid,
		"vector":                 func(q *searchQuery, v any, _ location) *apiError { q.HasVector = v != nil; return nil },
		"media":                  func(q *searchQuery, v any, _ location) *apiError { q.HasVector = q.HasVector || v != nil; return nil },
		"personalize":            func(q *searchQuery, v any, _ location) *apiError { q.HasPersonalize = v != nil; return nil },
	}
}

func setQ(q *searchQuery, v any, l location) *apiError {
	if v == nil {
		q.Q = ""
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return l.typeError("a string", v)
	}
	q.Q = s
	return nil
}

func setFacets(q *searchQuery, v any, l location) (e *apiError) {
	q.Facets, e = asStringList(v, l)
	q.FacetsSet = v != nil
	return e
}

func setDistinct(q *searchQuery, v any, l location) *apiError {
	if v == nil {
		q.Distinct = nil
		return nil
	}
	s, err := asString(v, l)
	q.Distinct = &s
	return err
}

func setMatchingStrategy(q *searchQuery, v any, l location) *apiError {
	s, err := asString(v, l)
	if err != nil {
		return err
	}
	allowed := []string{"last", "all", "frequency"}
	for _, a := range allowed {
		if s == a {
			q.MatchingStrategy = s
			return nil
		}
	}
	return l.unknownValue(s, allowed)
}

func setRankingScoreThreshold(q *searchQuery, v any, l location) *apiError {
	if v == nil {
		q.RankingScoreThreshold = nil
		return nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return l.typeError("a number", v)
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
		return l.invalidValue("the value of `rankingScoreThreshold` is invalid, expected a float between `0.0` and `1.0`.")
	}
	q.RankingScoreThreshold = &f
	return nil
}

// setHybrid only checks the shape: this index has no embedders, so any
// embedder name fails later with invalid_search_embedder.
func setHybrid(q *searchQuery, v any, l location) *apiError {
	if v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return l.typeError("an object", v)
	}
	name, ok := obj["embedder"].(string)
	if !ok {
		return newError("invalid_search_hybrid_query", "Missing field `embedder` inside `.hybrid`")
	}
	q.HybridEmbedder = &name
	return nil
}

func asUint(v any, l location) (int, *apiError) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(n.String(), ".eE-") {
		return 0, l.typeError("a positive integer", v)
	}
	u, err := strconv.ParseUint(n.String(), 10, 63)
	if err != nil {
		return math.MaxInt64, nil // too large to matter: clamped by maxTotalHits
	}
	return int(u), nil
}

func asOptUint(v any, l location) (*int, *apiError) {
	if v == nil {
		return nil, nil
	}
	n, err := asUint(v, l)
	return &n, err
}

func asBool(v any, l location) (bool, *apiError) {
	b, ok := v.(bool)
	if !ok {
		return false, l.typeError("a boolean", v)
	}
	return b, nil
}

func asString(v any, l location) (string, *apiError) {
	s, ok := v.(string)
	if !ok {
		return "", l.typeError("a string", v)
	}
	return s, nil
}

// asStringList accepts null (unset) or an array of strings.
func asStringList(v any, l location) ([]string, *apiError) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, l.typeError("an array", v)
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, newError(l.code(), "Invalid value type at `.%s[%d]`: expected a string, but found %s", l.name, i, describeValue(item))
		}
		out = append(out, s)
	}
	return out, nil
}
