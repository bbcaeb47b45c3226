package meili

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// SearchParams are the search fields the gate uses (docs/backends.md,
// Meilisearch wire details: Search request), sent as they are: only fields
// Meilisearch knows (it rejects unknown ones with 400 bad_request), zero
// values left out so Meilisearch applies its defaults (limit 20, offset 0,
// cropLength 10, cropMarker "…"). Filter is required: the client refuses a
// search that is not narrowed by one.
type SearchParams struct {
	Query                string   `json:"q,omitempty"`
	Filter               string   `json:"filter"`
	Limit                int      `json:"limit,omitempty"`
	Offset               int      `json:"offset,omitempty"`
	AttributesToRetrieve []string `json:"attributesToRetrieve,omitempty"`
	AttributesToCrop     []string `json:"attributesToCrop,omitempty"`
	CropLength           int      `json:"cropLength,omitempty"`
	CropMarker           string   `json:"cropMarker,omitempty"`
	ShowRankingScore     bool     `json:"showRankingScore,omitempty"`
	// The fields a docs search box adds (the gate's Meilisearch-compatible
	// routes): highlighting, page-based pagination and facets.
	AttributesToHighlight []string `json:"attributesToHighlight,omitempty"`
	HighlightPreTag       string   `json:"highlightPreTag,omitempty"`
	HighlightPostTag      string   `json:"highlightPostTag,omitempty"`
	Page                  *int     `json:"page,omitempty"`
	HitsPerPage           *int     `json:"hitsPerPage,omitempty"`
	Facets                []string `json:"facets,omitempty"`
	// What current clients add (meilisearch-js, instant-meilisearch):
	// which query words must match ("last", "all", "frequency") and the
	// lowest ranking score a hit may have (0..1).
	MatchingStrategy      string   `json:"matchingStrategy,omitempty"`
	RankingScoreThreshold *float64 `json:"rankingScoreThreshold,omitempty"`
}

// validate refuses what is the caller's bug, not the backend's.
func (p SearchParams) validate() error {
	if p.Filter == "" {
		return fmt.Errorf("meili: refusing a search without a filter")
	}
	if p.Limit < 0 || p.Offset < 0 || p.CropLength < 0 {
		return fmt.Errorf("meili: negative limit, offset or crop length")
	}
	return nil
}

// SearchResponse is a search answer (docs/backends.md, Meilisearch wire
// details: Search response). Limit, Offset and EstimatedTotalHits come with
// offset/limit searches; TotalHits (with page, hitsPerPage, totalPages) with
// page searches. Total picks the right one.
type SearchResponse struct {
	Hits               []Hit  `json:"hits"`
	Query              string `json:"query"`
	ProcessingTimeMs   int    `json:"processingTimeMs"`
	Limit              int    `json:"limit,omitempty"`
	Offset             int    `json:"offset,omitempty"`
	EstimatedTotalHits int    `json:"estimatedTotalHits,omitempty"`
	TotalHits          int    `json:"totalHits,omitempty"`
	// Page-based searches only.
	Page        int `json:"page,omitempty"`
	HitsPerPage int `json:"hitsPerPage,omitempty"`
	TotalPages  int `json:"totalPages,omitempty"`
	// FacetDistribution is there when facets were asked.
	FacetDistribution map[string]map[string]int `json:"facetDistribution,omitempty"`
}

// Total is the number of matching documents Meilisearch reported: exact with
// page-based searches, an estimate otherwise.
func (r *SearchResponse) Total() int {
	if r.TotalHits > 0 {
		return r.TotalHits
	}
	return r.EstimatedTotalHits
}

// Hit is one document of the page index (docs/backends.md,
// What the backends must hold) as a search returns it.
// Fields the index lacks stay empty; unknown fields are ignored. Every
// field decodes in one pass (no re-parsing): this is the gate's hot path.
type Hit struct {
	ID           DocumentID `json:"id"`
	Path         string     `json:"path"`
	URL          string     `json:"url"`
	Title        string     `json:"title"`
	Project      string     `json:"project"`
	Version      string     `json:"version"`
	Status       string     `json:"status"`
	PathPrefixes []string   `json:"pathPrefixes"`
	Headings     []string   `json:"headings"`
	Content      string     `json:"content"`
	// Formatted is _formatted: the cropped or highlighted copy of the
	// retrieved fields. Only the content crop is used.
	Formatted Formatted `json:"_formatted"`
	// RankingScore is _rankingScore (0..1), present with ShowRankingScore.
	RankingScore float64 `json:"_rankingScore,omitempty"`
}

// Formatted holds the parts of _formatted the gate uses.
type Formatted struct {
	Content FormattedText `json:"content"`
	// Title is used by the Meilisearch-compatible routes, whose callers
	// highlight titles.
	Title FormattedText `json:"title"`
}

// FormattedText is a string field of _formatted. Meilisearch turns numbers
// into strings there; anything that is not a string decodes as "" rather
// than failing the whole response.
type FormattedText string

// UnmarshalJSON keeps strings and ignores every other JSON type.
func (t *FormattedText) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		*t = ""
		return nil
	}
	s, err := jsonString(b)
	*t = FormattedText(s)
	return err
}

// jsonString decodes a JSON string literal. Literals without escapes (the
// common case on the hot path) are sliced directly; others go through
// encoding/json, which also validates them.
func jsonString(b []byte) (string, error) {
	if body, ok := plainJSONString(b); ok {
		return string(body), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// plainJSONString returns the inside of a quoted literal that needs no
// decoding: no escapes, no raw control characters (which JSON forbids),
// valid UTF-8.
func plainJSONString(b []byte) ([]byte, bool) {
	n := len(b)
	if n < 2 || b[0] != '"' || b[n-1] != '"' {
		return nil, false
	}
	body := b[1 : n-1]
	for _, c := range body {
		if c < 0x20 || c == '\\' || c == '"' {
			return nil, false
		}
	}
	return body, utf8.Valid(body)
}

// DocumentID is a document id; Meilisearch ids may be integers, which are
// rendered in decimal.
type DocumentID string

// UnmarshalJSON accepts a string or an integer id.
func (id *DocumentID) UnmarshalJSON(b []byte) error {
	s, err := documentID(b)
	*id = DocumentID(s)
	return err
}

func documentID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		return jsonString(raw)
	}
	if _, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
		return string(raw), nil
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return string(raw), nil
	}
	return "", fmt.Errorf("document id %.32s is neither a string nor an integer", raw)
}
