package protocol

// The usual search body is {"question": "...", "limit": n} in plain ASCII:
// strict decoding through encoding/json/v2 (reflection, option checks) was
// a few microseconds of every search call. decodeSimple reads exactly that
// shape and nothing else; any other body, and anything it is not sure of,
// goes to the strict decoder. A body it accepts is one the strict decoder
// accepts with the same value (FuzzSearchRequestSimpleIsStrict): the only
// names are the exact "question" and "limit", each at most once, the
// question holds only printable ASCII without escapes (valid UTF-8,
// nothing to unescape), the limit is a plain decimal integer, and nothing
// follows the object. Validation runs afterwards as for any body.

// simpleDecoder is implemented by request types with such a reading.
type simpleDecoder interface {
	decodeSimple(body []byte) bool
}

// decodeSimple fills r from body when body has the simple shape, leaving r
// untouched and returning false otherwise.
func (r *SearchRequest) decodeSimple(body []byte) bool {
	s := simpleScan{b: body}
	if !s.byte('{') {
		return false
	}
	var question string
	var limit int
	var haveQuestion, haveLimit bool
	if !s.byte('}') {
		for {
			name, ok := s.plainString()
			if !ok || !s.byte(':') {
				return false
			}
			switch {
			case string(name) == "question" && !haveQuestion:
				var q []byte
				if q, ok = s.plainString(); !ok {
					return false
				}
				question, haveQuestion = string(q), true
			case string(name) == "limit" && !haveLimit:
				if limit, ok = s.smallInt(); !ok {
					return false
				}
				haveLimit = true
			default:
				return false
			}
			if s.byte('}') {
				break
			}
			if !s.byte(',') {
				return false
			}
		}
	}
	if !s.end() {
		return false
	}
	*r = SearchRequest{Standard: Standard{Question: question}, Limit: limit}
	return true
}

// simpleScan reads the simple shape: JSON whitespace between tokens.
type simpleScan struct {
	b []byte
	i int
}

func (s *simpleScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c after whitespace.
func (s *simpleScan) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII other than '"' and '\\';
// the bytes are the body's.
func (s *simpleScan) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return v, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// smallInt reads 0 or a decimal integer of at most four digits without a
// leading zero (the limit is at most MaxSearchLimit; larger ones go to
// the strict decoder and to validation's message).
func (s *simpleScan) smallInt() (int, bool) {
	s.space()
	start, n := s.i, 0
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		n = n*10 + int(s.b[s.i]-'0')
	}
	digits := s.i - start
	if digits == 0 || digits > 4 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	// A number must end here: 6.5, 6e1 and 6x are not this shape.
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n', ',', '}':
		default:
			return 0, false
		}
	}
	return n, true
}

// end reports whether only whitespace is left.
func (s *simpleScan) end() bool {
	s.space()
	return s.i == len(s.b)
}
