package meili

import (
	"math"
	"strconv"

	"github.com/wikigate/wikigate/protocol"
)

// appendJSON appends p as json.Marshal encodes it (HTML-escaped strings,
// zero values of omitempty fields left out), without reflection: it runs
// on every search (TestSearchParamsAppendJSONIsMarshal holds it to
// json.Marshal).
func (p *SearchParams) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if p.Query != "" {
		dst = protocol.AppendJSONString(append(dst, `"q":`...), p.Query, true)
		dst = append(dst, ',')
	}
	dst = protocol.AppendJSONString(append(dst, `"filter":`...), p.Filter, true)
	dst = appendIntField(dst, `,"limit":`, p.Limit)
	dst = appendIntField(dst, `,"offset":`, p.Offset)
	dst = appendStringsField(dst, `,"attributesToRetrieve":`, p.AttributesToRetrieve)
	dst = appendStringsField(dst, `,"attributesToCrop":`, p.AttributesToCrop)
	dst = appendIntField(dst, `,"cropLength":`, p.CropLength)
	dst = appendStringField(dst, `,"cropMarker":`, p.CropMarker)
	if p.ShowRankingScore {
		dst = append(dst, `,"showRankingScore":true`...)
	}
	dst = appendStringsField(dst, `,"attributesToHighlight":`, p.AttributesToHighlight)
	dst = appendStringField(dst, `,"highlightPreTag":`, p.HighlightPreTag)
	dst = appendStringField(dst, `,"highlightPostTag":`, p.HighlightPostTag)
	if p.Page != nil {
		dst = strconv.AppendInt(append(dst, `,"page":`...), int64(*p.Page), 10)
	}
	if p.HitsPerPage != nil {
		dst = strconv.AppendInt(append(dst, `,"hitsPerPage":`...), int64(*p.HitsPerPage), 10)
	}
	dst = appendStringsField(dst, `,"facets":`, p.Facets)
	dst = appendStringField(dst, `,"matchingStrategy":`, p.MatchingStrategy)
	if p.RankingScoreThreshold != nil {
		dst = appendFloat(append(dst, `,"rankingScoreThreshold":`...), *p.RankingScoreThreshold)
	}
	return append(dst, '}')
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal, in exponent form (two-digit exponent at least) below 1e-6 or
// from 1e21 on.
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-6 && abs < 1e21) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// e-07 → e-7, as encoding/json writes it
	if n := len(dst) - start; n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
		dst[len(dst)-2] = dst[len(dst)-1]
		dst = dst[:len(dst)-1]
	}
	return dst
}

// appendIntField appends name and v unless v is 0 (omitempty).
func appendIntField(dst []byte, name string, v int) []byte {
	if v == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, name...), int64(v), 10)
}

// appendStringField appends name and v unless v is empty (omitempty).
func appendStringField(dst []byte, name, v string) []byte {
	if v == "" {
		return dst
	}
	return protocol.AppendJSONString(append(dst, name...), v, true)
}

// appendStringsField appends name and vs unless vs is empty (omitempty).
func appendStringsField(dst []byte, name string, vs []string) []byte {
	if len(vs) == 0 {
		return dst
	}
	dst = append(append(dst, name...), '[')
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = protocol.AppendJSONString(dst, v, true)
	}
	return append(dst, ']')
}
