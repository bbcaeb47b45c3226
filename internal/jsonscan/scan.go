package jsonscan

import (
	"encoding/binary"
	"errors"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads JSON from one body in a single pass: the one-pass reader
// under meili's search decoder and ragflow's retrieval and SSE decoders,
// which drive it member by member and so never build a generic value. It
// accepts exactly what encoding/json accepts (RFC 8259 syntax, nesting up
// to maxDepth) and decodes strings as encoding/json does: escapes
// resolved, invalid UTF-8 and lone surrogates replaced with U+FFFD.
// Strings that need no decoding are slices of one string copy of the
// whole body, so a response costs one string allocation however many
// fields it has. The decoders' fuzz tests hold it to encoding/json, and
// FuzzScannerMatchesEncodingJSON here does so directly.
type Scanner struct {
	data    []byte
	str     string // data as a string
	pos     int
	depth   int
	scratch []byte // decoded text of the last escaped string or key

	keyStart, keyEnd int // the last key's span in str; -1 when it was escaped
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// The errors of a read: the text is not JSON, a value is not of the kind
// the caller asked for, it nests deeper than maxDepth, or more follows it.
var (
	ErrSyntax   = errors.New("invalid JSON")
	ErrType     = errors.New("value of the wrong JSON type")
	ErrTooDeep  = errors.New("JSON nested too deeply")
	ErrTrailing = errors.New("data after the JSON value")
)

// Init readies s for body, keeping the scratch buffer of its last use.
func (s *Scanner) Init(body []byte) {
	*s = Scanner{data: body, str: string(body), scratch: s.scratch[:0]}
}

// Release lets go of the body (its string copy may be large) and keeps
// the scratch buffer, for a scanner that is pooled.
func (s *Scanner) Release() { *s = Scanner{scratch: s.scratch[:0]} }

// ScratchCap is the capacity of the scratch buffer, for a pool that drops
// scanners a rare large body grew.
func (s *Scanner) ScratchCap() int { return cap(s.scratch) }

// Bool reads true or false (the caller has peeked its 't' or 'f').
func (s *Scanner) Bool() (bool, error) {
	for _, lit := range [...]string{"true", "false"} {
		if len(s.data)-s.pos >= len(lit) && s.str[s.pos:s.pos+len(lit)] == lit {
			s.pos += len(lit)
			return lit == "true", nil
		}
	}
	return false, ErrSyntax
}

// Peek skips whitespace and returns the next byte, 0 at the end.
func (s *Scanner) Peek() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// End checks nothing but whitespace follows the value.
func (s *Scanner) End() error {
	if s.Peek(); s.pos < len(s.data) {
		return ErrTrailing
	}
	return nil
}

// Expect consumes c after optional whitespace.
func (s *Scanner) Expect(c byte) error {
	if s.Peek() != c {
		return ErrSyntax
	}
	s.pos++
	return nil
}

// Open consumes '{' or '[' (the caller has peeked it) and counts depth.
func (s *Scanner) Open() error {
	s.pos++
	s.depth++
	if s.depth > maxDepth {
		return ErrTooDeep
	}
	return nil
}

// Next is called after a member or element: it consumes ',' (more follows,
// true) or the closing byte (false).
func (s *Scanner) Next(closing byte) (bool, error) {
	switch s.Peek() {
	case ',':
		s.pos++
		return true, nil
	case closing:
		s.pos++
		s.depth--
		return false, nil
	}
	return false, ErrSyntax
}

// First consumes the closing byte of an empty object or array (false) or
// says a member or element follows (true).
func (s *Scanner) First(closing byte) bool {
	if s.Peek() == closing {
		s.pos++
		s.depth--
		return false
	}
	return true
}

// Key reads an object key and its colon. The bytes are valid until the
// next string is read; KeyString is the key as a string.
func (s *Scanner) Key() ([]byte, error) {
	if s.Peek() != '"' {
		return nil, ErrSyntax
	}
	start, end, plain, err := s.scanString()
	if err != nil {
		return nil, err
	}
	k := s.data[start:end]
	s.keyStart, s.keyEnd = start, end
	if !plain {
		k = s.unquote(start, end)
		s.keyStart, s.keyEnd = -1, -1
	}
	return k, s.Expect(':')
}

// KeyString is k, the key Key last returned, as a string: a slice of str
// when it needed no decoding, else a copy.
func (s *Scanner) KeyString(k []byte) string {
	if s.keyStart >= 0 {
		return s.str[s.keyStart:s.keyEnd]
	}
	return string(k)
}

// StringValue reads a string (the caller has peeked '"').
func (s *Scanner) StringValue() (string, error) {
	start, end, plain, err := s.scanString()
	if err != nil || plain {
		return s.str[start:end], err
	}
	return string(s.unquote(start, end)), nil
}

// scanString consumes a string literal and returns the span inside the
// quotes, and whether that span is the value as it stands (no escapes,
// valid UTF-8).
func (s *Scanner) scanString() (start, end int, plain bool, err error) {
	start, end, plain, err = stringSpan(s.data, s.pos)
	if err == nil {
		s.pos = end + 1
	}
	return start, end, plain, err
}

// stringSpan checks the string literal whose opening quote is data[quote]
// as encoding/json does and returns the span inside the quotes, and
// whether that span is the value as it stands (no escapes, valid UTF-8).
func stringSpan(data []byte, quote int) (start, end int, plain bool, err error) {
	i := quote + 1
	start, plain = i, true
	for i < len(data) {
		// Most bytes are plain ASCII: skip runs of them first, eight at
		// a time while they last.
		for i+8 <= len(data) && plainWord(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for i < len(data) && plainASCII[data[i]] {
			i++
		}
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '"':
			return start, i, plain, nil
		case c < ' ':
			return 0, 0, false, ErrSyntax
		case c == '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return 0, 0, false, ErrSyntax
			}
			i += n
			plain = false
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size
		}
	}
	return 0, 0, false, ErrSyntax
}

// plainASCII marks the bytes that stand for themselves inside a string.
var plainASCII = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Bytes of a word, for plainWord.
const (
	wordOnes  = 0x0101010101010101
	wordHighs = 0x8080808080808080
)

// plainWord reports whether the eight bytes of w (read little-endian from
// a string literal) are all plainASCII: none is below ' ', a quote, a
// backslash or past ASCII. Each test is the exact "some byte is zero"
// (or "below n") word trick, so a false says only that one byte of the
// eight needs the byte-by-byte path.
func plainWord(w uint64) bool {
	const quote, backslash = wordOnes * '"', wordOnes * '\\'
	return (w&wordHighs | bytesBelow(w, ' ') | bytesBelow(w^quote, 1) | bytesBelow(w^backslash, 1)) == 0
}

// bytesBelow is non-zero iff some byte of v is below n (n <= 128).
func bytesBelow(v, n uint64) uint64 { return (v - wordOnes*n) &^ v & wordHighs }

// escapeLen is the length of the valid escape sequence at the start of
// b, 0 for an invalid one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(b[2:]) >= 0 {
			return 6
		}
	}
	return 0
}

// unquote decodes the validated literal body data[start:end] into scratch
// as encoding/json does.
func (s *Scanner) unquote(start, end int) []byte {
	in := s.data[start:end]
	if cap(s.scratch) < len(in) {
		// Decoded text is no longer than the literal unless it holds
		// invalid UTF-8, so this is the only growth for almost any string.
		s.scratch = make([]byte, 0, max(len(in), 2*cap(s.scratch), 256))
	}
	s.scratch = appendUnquoted(s.scratch[:0], in)
	return s.scratch
}

// appendUnquoted appends the decoding of in, a literal body stringSpan
// checked, as encoding/json decodes it: escapes resolved, invalid UTF-8
// and lone surrogates replaced with U+FFFD.
func appendUnquoted(b, in []byte) []byte {
	for r := 0; r < len(in); {
		// Copy each run of plain ASCII at once: a chunk's content is
		// mostly that, between its escaped newlines.
		j := r
		for j+8 <= len(in) && plainWord(binary.LittleEndian.Uint64(in[j:])) {
			j += 8
		}
		for j < len(in) && plainASCII[in[j]] {
			j++
		}
		b = append(b, in[r:j]...)
		if r = j; r == len(in) {
			break
		}
		c := in[r]
		switch {
		case c == '\\':
			var n int
			b, n = appendEscape(b, in[r:])
			r += n
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(in[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return b
}

// appendEscape appends the text of the validated escape at the start of in
// and says how many bytes it took; a lone surrogate is U+FFFD.
func appendEscape(b, in []byte) ([]byte, int) {
	switch in[1] {
	case 'b':
		return append(b, '\b'), 2
	case 'f':
		return append(b, '\f'), 2
	case 'n':
		return append(b, '\n'), 2
	case 'r':
		return append(b, '\r'), 2
	case 't':
		return append(b, '\t'), 2
	case 'u':
		r := hex4(in[2:])
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(b, r), 6
		}
		if len(in) >= 12 && in[6] == '\\' && in[7] == 'u' {
			if dec := utf16.DecodeRune(r, hex4(in[8:])); dec != unicode.ReplacementChar {
				return utf8.AppendRune(b, dec), 12
			}
		}
		return utf8.AppendRune(b, unicode.ReplacementChar), 6
	}
	return append(b, in[1]), 2
}

// hex4 is the value of four hex digits at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// Number consumes a number literal and returns its text.
func (s *Scanner) Number() (string, error) {
	start, d := s.pos, s.data
	if s.pos < len(d) && d[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(d) && d[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return "", ErrSyntax
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return "", ErrSyntax
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return "", ErrSyntax
		}
	}
	return s.str[start:s.pos], nil
}

func (s *Scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

// Literal consumes true, false or null.
func (s *Scanner) Literal() error {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(s.data)-s.pos >= len(lit) && s.str[s.pos:s.pos+len(lit)] == lit {
			s.pos += len(lit)
			return nil
		}
	}
	return ErrSyntax
}

// Null consumes null if it is next.
func (s *Scanner) Null() bool {
	if s.Peek() == 'n' && len(s.data)-s.pos >= 4 && s.str[s.pos:s.pos+4] == "null" {
		s.pos += 4
		return true
	}
	return false
}

// Skip consumes any value, checking its syntax.
func (s *Scanner) Skip() error {
	switch c := s.Peek(); {
	case c == '"':
		_, _, _, err := s.scanString()
		return err
	case c == '{':
		return s.skipObject()
	case c == '[':
		return s.skipArray()
	case c == '-' || '0' <= c && c <= '9':
		_, err := s.Number()
		return err
	default:
		return s.Literal()
	}
}

func (s *Scanner) skipObject() error {
	if err := s.Open(); err != nil {
		return err
	}
	for more := s.First('}'); more; {
		if _, err := s.Key(); err != nil {
			return err
		}
		if err := s.Skip(); err != nil {
			return err
		}
		var err error
		if more, err = s.Next('}'); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scanner) skipArray() error {
	if err := s.Open(); err != nil {
		return err
	}
	for more := s.First(']'); more; {
		if err := s.Skip(); err != nil {
			return err
		}
		var err error
		if more, err = s.Next(']'); err != nil {
			return err
		}
	}
	return nil
}
