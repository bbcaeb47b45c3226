package meili

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// decodeSearch reads a search response in one pass straight into a
// SearchResponse. Decoding was the largest cost the gate added to a search
// (bench/RESULTS.md); this reader allocates the response, one copy of the
// body that the plain strings slice, and the slices, and nothing per field.
// It keeps encoding/json's reading rules exactly (decode_oracle_test.go
// holds it to them): keys match case-insensitively, unknown fields are
// ignored, a repeated key decodes again over the earlier value, null leaves
// a string or number as it was, invalid UTF-8 becomes U+FFFD, and any
// syntax or type error fails the whole response. The strings of a
// response share that one copy, so a Hit held on to keeps the whole body in
// memory: nothing in the gate keeps hits past the request.
func decodeSearch(status int, body []byte) (*SearchResponse, error) {
	var s scanner
	s.Init(body)
	resp := &SearchResponse{}
	hasHits, err := s.response(resp)
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return nil, badResponse(status, "decoding search response: %v", err)
	}
	if !hasHits {
		return nil, badResponse(status, "search response has no hits array")
	}
	return resp, nil
}

var responseFields = []string{"hits", "query", "processingTimeMs", "limit", "offset",
	"estimatedTotalHits", "totalHits", "page", "hitsPerPage", "totalPages", "facetDistribution"}

// response reads the top-level object and says whether it held a hits
// array (a missing or null hits is refused).
func (s *scanner) response(r *SearchResponse) (hasHits bool, err error) {
	if s.Null() {
		return false, nil
	}
	if s.Peek() != '{' {
		return false, errType
	}
	if err := s.Open(); err != nil {
		return false, err
	}
	for more := s.First('}'); more; {
		k, err := s.Key()
		if err != nil {
			return false, err
		}
		switch field(k, responseFields) {
		case "hits":
			hasHits, err = s.hitsField(&r.Hits, hasHits)
		case "query":
			err = s.stringField(&r.Query)
		case "processingTimeMs":
			err = s.intField(&r.ProcessingTimeMs)
		case "limit":
			err = s.intField(&r.Limit)
		case "offset":
			err = s.intField(&r.Offset)
		case "estimatedTotalHits":
			err = s.intField(&r.EstimatedTotalHits)
		case "totalHits":
			err = s.intField(&r.TotalHits)
		case "page":
			err = s.intField(&r.Page)
		case "hitsPerPage":
			err = s.intField(&r.HitsPerPage)
		case "totalPages":
			err = s.intField(&r.TotalPages)
		case "facetDistribution":
			err = s.facetField(&r.FacetDistribution)
		default:
			err = s.Skip()
		}
		if err != nil {
			return false, err
		}
		if more, err = s.Next('}'); err != nil {
			return false, err
		}
	}
	return hasHits, nil
}

// hitsField reads hits as encoding/json reads a *[]Hit: null drops any
// earlier array, a repeated array decodes over the earlier one.
func (s *scanner) hitsField(hits *[]Hit, had bool) (bool, error) {
	if s.Null() {
		*hits = nil
		return false, nil
	}
	if s.Peek() != '[' {
		return had, errType
	}
	if !had {
		*hits = nil
	}
	return true, s.hitArray(hits)
}

// hitArray reads an array into *hits the way encoding/json fills a slice:
// element i decodes over whatever the backing array holds there, and the
// slice ends at the last element (empty, not nil, for []).
func (s *scanner) hitArray(hits *[]Hit) error {
	if err := s.Open(); err != nil {
		return err
	}
	h, i := *hits, 0
	if h == nil {
		h = make([]Hit, 0, 8)
	}
	for more := s.First(']'); more; i++ {
		switch {
		case i >= cap(h):
			h = append(h, Hit{})
		case i >= len(h):
			h = h[:i+1]
		}
		if err := s.hitValue(&h[i]); err != nil {
			return err
		}
		var err error
		if more, err = s.Next(']'); err != nil {
			return err
		}
	}
	if i == 0 {
		h = []Hit{}
	}
	*hits = h[:i]
	return nil
}

// field is the name in names key stands for: the exact name, else the one
// it equals under encoding/json's case folding; "" for an unknown key.
func field(key []byte, names []string) string {
	for _, n := range names {
		if string(key) == n {
			return n
		}
	}
	for _, n := range names {
		if foldEqual(key, n) {
			return n
		}
	}
	return ""
}

// foldEqual is encoding/json's key match for an ASCII field name: each
// rune of key upper-cased after lower-casing (so the Kelvin sign matches
// k and the long s matches s) equals the name upper-cased.
func foldEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); j++ {
		if j >= len(name) {
			return false
		}
		r, size := rune(key[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(key[i:])
			r = unicode.ToUpper(unicode.ToLower(r))
		}
		i += size
		if upperASCII(r) != upperASCII(rune(name[j])) {
			return false
		}
	}
	return j == len(name)
}

func upperASCII(r rune) rune {
	if 'a' <= r && r <= 'z' {
		return r - ('a' - 'A')
	}
	return r
}

// stringField reads a string; null leaves *dst as it was.
func (s *scanner) stringField(dst *string) error {
	switch s.Peek() {
	case 'n':
		if s.Null() {
			return nil
		}
		return errSyntax
	case '"':
		v, err := s.StringValue()
		if err == nil {
			*dst = v
		}
		return err
	}
	return s.wrongType()
}

// intField reads an integer; null leaves *dst as it was.
func (s *scanner) intField(dst *int) error {
	text, ok, err := s.numberOrNull()
	if err != nil || !ok {
		return err
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return errType
	}
	*dst = int(n)
	return nil
}

// floatField reads a number; null leaves *dst as it was.
func (s *scanner) floatField(dst *float64) error {
	text, ok, err := s.numberOrNull()
	if err != nil || !ok {
		return err
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return errType
	}
	*dst = f
	return nil
}

// numberOrNull reads a number literal (ok) or null (not ok); anything else
// is an error.
func (s *scanner) numberOrNull() (text string, ok bool, err error) {
	switch c := s.Peek(); {
	case c == 'n':
		if s.Null() {
			return "", false, nil
		}
		return "", false, errSyntax
	case c == '-' || '0' <= c && c <= '9':
		text, err = s.Number()
		return text, err == nil, err
	}
	return "", false, s.wrongType()
}

// wrongType is the error for a value of another JSON type: a syntax error
// when the value is not even JSON, so the message says the right thing.
func (s *scanner) wrongType() error {
	if err := s.Skip(); err != nil {
		return err
	}
	return errType
}
