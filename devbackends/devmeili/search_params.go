package devmeili

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// paramKind says how a GET search parameter's text becomes a JSON value.
type paramKind int

const (
	paramString paramKind = iota
	paramUint
	paramBool
	paramFloat
	paramList
	paramFilter
)

// searchParamKinds lists the GET parameters (E SearchQueryGet); the hybrid
// and personalize objects arrive flattened into their own parameters.
var searchParamKinds = map[string]paramKind{
	"q": paramString, "vector": paramList, "offset": paramUint, "limit": paramUint,
	"page": paramUint, "hitsPerPage": paramUint, "attributesToRetrieve": paramList,
	"retrieveVectors": paramBool, "attributesToCrop": paramList, "cropLength": paramUint,
	"attributesToHighlight": paramList, "filter": paramFilter, "sort": paramList,
	"distinct": paramString, "showMatchesPosition": paramBool, "showRankingScore": paramBool,
	"showRankingScoreDetails": paramBool, "showPerformanceDetails": paramBool, "facets": paramList,
	"highlightPreTag": paramString, "highlightPostTag": paramString, "cropMarker": paramString,
	"matchingStrategy": paramString, "attributesToSearchOn": paramList,
	"hybridEmbedder": paramString, "hybridSemanticRatio": paramFloat,
	"rankingScoreThreshold": paramFloat, "locales": paramList,
	"personalizeUserContext": paramString, "useNetwork": paramBool,
}

var searchParamNames = []string{"q", "vector", "offset", "limit", "page", "hitsPerPage",
	"attributesToRetrieve", "retrieveVectors", "attributesToCrop", "cropLength", "attributesToHighlight",
	"filter", "sort", "distinct", "showMatchesPosition", "showRankingScore", "showRankingScoreDetails",
	"showPerformanceDetails", "facets", "highlightPreTag", "highlightPostTag", "cropMarker",
	"matchingStrategy", "attributesToSearchOn", "hybridEmbedder", "hybridSemanticRatio",
	"rankingScoreThreshold", "locales", "personalizeUserContext", "useNetwork"}

// queryPair is one name=value of a query string, kept in order so the first
// bad parameter is the one reported.
type queryPair struct{ name, value string }

func orderedQuery(raw string) ([]queryPair, *apiError) {
	var pairs []queryPair
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, newError("bad_request", "Invalid URL query string: `%s`.", part)
		}
		pairs = append(pairs, queryPair{name, value})
	}
	return pairs, nil
}

// decodeSearchParams decodes GET /indexes/{uid}/search parameters.
func decodeSearchParams(rawQuery string) (searchQuery, *apiError) {
	q := defaultSearchQuery()
	pairs, err := orderedQuery(rawQuery)
	if err != nil {
		return q, err
	}
	for _, p := range pairs {
		kind, ok := searchParamKinds[p.name]
		if !ok {
			return q, newError("bad_request", "Unknown parameter `%s`: expected one of %s", p.name, quotedList(searchParamNames))
		}
		loc := location{name: p.name, param: true}
		v, err := paramValue(kind, p.value, loc)
		if err != nil {
			return q, err
		}
		if err := applySearchParam(&q, p.name, v, loc); err != nil {
			return q, err
		}
	}
	return q, nil
}

func applySearchParam(q *searchQuery, name string, v any, loc location) *apiError {
	switch name {
	case "hybridEmbedder":
		s := v.(string)
		q.HybridEmbedder = &s
		return nil
	case "hybridSemanticRatio":
		return nil
	case "personalizeUserContext":
		q.HasPersonalize = true
		return nil
	}
	return searchSetters[name](q, v, loc)
}

// paramValue parses a parameter's text into the JSON value a POST body would
// carry, with the engine's "Invalid value in parameter" messages.
func paramValue(kind paramKind, s string, loc location) (any, *apiError) {
	switch kind {
	case paramUint:
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			return nil, loc.invalidValue("could not parse `" + s + "` as a positive integer")
		}
		return json.Number(s), nil
	case paramBool:
		b, err := strconv.ParseBool(s)
		if err != nil || (s != "true" && s != "false") {
			return nil, loc.invalidValue("could not parse `" + s + "` as a boolean, expected either `true` or `false`")
		}
		return b, nil
	case paramFloat:
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return nil, loc.invalidValue("could not parse `" + s + "` as a float")
		}
		return json.Number(s), nil
	case paramList:
		var items []any
		for _, item := range strings.Split(s, ",") {
			items = append(items, strings.TrimSpace(item))
		}
		return items, nil
	case paramFilter:
		return filterParam(s), nil
	}
	return s, nil
}

// filterParam: a GET filter that parses as JSON is used as JSON (so the
// array form works in a URL), anything else is the filter string itself.
func filterParam(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		return v
	}
	return s
}
