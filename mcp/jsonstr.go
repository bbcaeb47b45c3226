package mcp

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes a string with HTML escaping (json.Marshal): the SDK encodes a
// TextContent that way, and the fast path must answer byte for byte what
// the SDK answers (TestAppendJSONStringIsEncodingJSON). Writing it here
// spares marshaling the text into a string of its own and copying it again.
func appendJSONString(dst []byte, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if n := safeRun(s[i:]); n > 0 {
			i += n
			continue
		}
		if b := s[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
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
			default: // other control bytes, and <, >, & for HTML
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRune(s[i:])
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

// Eight bytes at a time: the masks below have the high bit of a byte set
// for the first byte (counting from the low end) that is below 0x20, is not
// ASCII, or equals one of '"', '\\', '<', '>', '&'. Borrows only move
// upward, so the lowest flagged byte is exact; bytes above it may be
// flagged falsely, which only sends them to the byte-by-byte loop.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// safeRun is how many bytes at the start of s appendJSONString copies as
// they are (htmlSafe ASCII), counted a word at a time; it stops short of
// the last 7 bytes and of the first byte that needs a look, which the
// caller's byte loop handles. On the text of a search result (mostly
// ASCII) this made escaping several times faster than the byte loop.
func safeRun(s []byte) int {
	n := 0
	for len(s)-n >= 8 {
		x := binary.LittleEndian.Uint64(s[n:])
		// '"' (0x22) and '&' (0x26) differ only in bit 2, '<' (0x3c)
		// and '>' (0x3e) only in bit 1: setting that bit makes each
		// pair one comparison.
		m := x | (x - 0x20*lsb) | hasByte(x, '\\') | hasByte(x|0x04*lsb, '&') | hasByte(x|0x02*lsb, '>')
		if m &= msb; m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	return n
}

// hasByte has the high bit set in the first byte of x equal to c (and
// possibly in bytes above it).
func hasByte(x uint64, c byte) uint64 {
	v := x ^ (lsb * uint64(c))
	return (v - lsb) &^ v
}

// htmlSafe marks the ASCII bytes written as they are: printable, and not
// '"', '\\' or the HTML-significant '<', '>', '&'.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()
