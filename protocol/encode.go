package protocol

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The search response is written on every search call; encoding/json's
// reflection over it was about a tenth of the gate's own CPU per call under
// bench B. AppendJSON writes the same bytes by hand (held to encoding/json
// by TestSearchResultAppendJSONIsEncodingJSON and FuzzAppendJSONString).

// ErrUnsupportedFloat is AppendJSON's error for a NaN or infinite score,
// which JSON cannot carry (encoding/json refuses them too).
var ErrUnsupportedFloat = errors.New("protocol: a score is NaN or infinite")

// AppendJSON appends r as encoding/json encodes it (json.Marshal when
// escapeHTML, an Encoder with SetEscapeHTML(false) otherwise), without the
// Encoder's trailing newline.
func (r *SearchResult) AppendJSON(dst []byte, escapeHTML bool) ([]byte, error) {
	dst, err := appendList(append(dst, `{"hits":`...), r.Hits, func(dst []byte, h *SearchHit) ([]byte, error) {
		return h.appendJSON(dst, escapeHTML)
	})
	if err != nil {
		return dst, err
	}
	dst = strconv.AppendInt(append(dst, `,"total":`...), int64(r.Total), 10)
	dst = r.Audit.appendJSON(append(dst, `,"audit":`...), escapeHTML)
	return append(dst, '}'), nil
}

func (h *SearchHit) appendJSON(dst []byte, escapeHTML bool) ([]byte, error) {
	dst = AppendJSONString(append(dst, `{"path":`...), h.Path, escapeHTML)
	dst = AppendJSONString(append(dst, `,"url":`...), h.URL, escapeHTML)
	dst = AppendJSONString(append(dst, `,"title":`...), h.Title, escapeHTML)
	if h.Anchor != "" {
		dst = AppendJSONString(append(dst, `,"anchor":`...), h.Anchor, escapeHTML)
	}
	dst = AppendJSONString(append(dst, `,"snippet":`...), h.Snippet, escapeHTML)
	var err error
	if dst, err = appendJSONFloat(append(dst, `,"score":`...), h.Score); err != nil {
		return dst, err
	}
	dst = AppendJSONString(append(dst, `,"sourceProject":`...), h.SourceProject, escapeHTML)
	dst = AppendJSONString(append(dst, `,"version":`...), h.Version, escapeHTML)
	return append(dst, '}'), nil
}

func (a *Audit) appendJSON(dst []byte, escapeHTML bool) []byte {
	dst = AppendJSONString(append(dst, `{"requestId":`...), a.RequestID, escapeHTML)
	dst = AppendJSONString(append(dst, `,"caller":`...), a.Caller, escapeHTML)
	dst = AppendJSONString(append(dst, `,"scope":`...), a.Scope, escapeHTML)
	if a.SessionID != "" {
		dst = AppendJSONString(append(dst, `,"sessionId":`...), a.SessionID, escapeHTML)
	}
	return append(dst, '}')
}

// appendJSONFloat writes f as encoding/json writes a float64: ES6 number
// formatting, 'e' notation only below 1e-6 or from 1e21, exponents without
// a leading zero.
func appendJSONFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, ErrUnsupportedFloat
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// AppendJSONString appends s as a JSON string exactly as encoding/json
// writes it: with escapeHTML, '<', '>' and '&' as \u003c etc. (json.Marshal);
// always \b \f \n \r \t and \u00XX for other control bytes, \ufffd for each
// byte of invalid UTF-8, and U+2028 and U+2029 escaped. Runs of ordinary
// ASCII are skipped eight bytes at a time: the text of search results is
// nearly all of that. s is a string or bytes (the MCP front escapes text
// it holds as bytes), so there is one such writer in the gate.
func AppendJSONString[T ~string | ~[]byte](dst []byte, s T, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if n := plainRun(s[i:], escapeHTML); n > 0 {
			i += n
			continue
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // other control bytes, and <, >, & when escaping HTML
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := decodeRune(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// Word masks: the high bit of a byte is set for the first byte (from the
// low end) that is below 0x20, not ASCII, or one of the bytes tested;
// borrows only move upward, so the lowest flagged byte is exact and any
// flagged above it only go to the byte loop.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun is how many bytes at the start of s need no escaping, counted
// eight at a time; it stops at the first byte that needs a look and short
// of the last seven bytes, which the byte loop takes.
func plainRun[T ~string | ~[]byte](s T, escapeHTML bool) int {
	n := 0
	for len(s)-n >= 8 {
		x := load64(s[n:])
		m := x | (x - 0x20*lsb) | hasByte(x, '\\')
		if escapeHTML {
			// '"' (0x22) and '&' (0x26) differ only in bit 2, '<' (0x3c)
			// and '>' (0x3e) only in bit 1: setting that bit makes each
			// pair one comparison.
			m |= hasByte(x|0x04*lsb, '&') | hasByte(x|0x02*lsb, '>')
		} else {
			m |= hasByte(x, '"')
		}
		if m &= msb; m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	return n
}

// load64 reads s's first eight bytes as a little-endian word (the compiler
// makes it one load).
func load64[T ~string | ~[]byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// AppendJSONStrings appends list as json.Marshal writes a []string but
// without HTML escaping (the decoded value is the same): null for nil.
func AppendJSONStrings(dst []byte, list []string) []byte {
	dst, _ = appendList(dst, list, func(dst []byte, s *string) ([]byte, error) {
		return AppendJSONString(dst, *s, false), nil
	})
	return dst
}

// appendList writes list as encoding/json writes a slice: null for nil,
// else an array of each element as item writes it. An item's error (a
// NaN score) stops the list.
func appendList[T any](dst []byte, list []T, item func([]byte, *T) ([]byte, error)) ([]byte, error) {
	if list == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = item(dst, &list[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// decodeRune is utf8.DecodeRune(InString) of s. A string conversion of at
// most utf8.UTFMax bytes stays on the stack, so bytes cost no allocation.
func decodeRune[T ~string | ~[]byte](s T) (rune, int) {
	return utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
}

// hasByte has the high bit set in the first byte of x equal to c (and
// possibly in bytes above it).
func hasByte(x uint64, c byte) uint64 {
	v := x ^ (lsb * uint64(c))
	return (v - lsb) &^ v
}
