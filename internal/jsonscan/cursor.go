package jsonscan

import (
	"unicode/utf8"
	"unsafe"
)

// Cursor is a position in JSON text for the readers that take one known
// shape and read it in place, without Scanner's string copy of the whole
// text: the MCP fast path (mcp/fast_scan.go), which declines anything
// unusual, and the policy result reader (policies/wasm_result.go), which
// reads text the Wasm module wrote. Each checks what it relies on; Cursor
// checks only what its methods say, and never reads past Buf.
type Cursor struct {
	Buf []byte
	Pos int
}

// Peek skips whitespace and returns the next byte, 0 at the end.
func (c *Cursor) Peek() byte {
	for c.Pos < len(c.Buf) {
		switch b := c.Buf[c.Pos]; b {
		case ' ', '\t', '\n', '\r':
			c.Pos++
		default:
			return b
		}
	}
	return 0
}

// Consume reads b after optional whitespace.
func (c *Cursor) Consume(b byte) bool {
	if c.Peek() == b {
		c.Pos++
		return true
	}
	return false
}

// AtEnd reports that nothing but whitespace is left.
func (c *Cursor) AtEnd() bool {
	c.Peek()
	return c.Pos == len(c.Buf)
}

// Word consumes word (true, false, null) if it is next, with no
// whitespace before it.
func (c *Cursor) Word(word string) bool {
	if len(c.Buf)-c.Pos >= len(word) && string(c.Buf[c.Pos:c.Pos+len(word)]) == word {
		c.Pos += len(word)
		return true
	}
	return false
}

// Bool consumes true or false, with no whitespace before it.
func (c *Cursor) Bool() (v, ok bool) {
	if c.Word("true") {
		return true, true
	}
	return false, c.Word("false")
}

// PlainString reads a string that needs no decoding (no escape, no
// control character, valid UTF-8) at Pos and returns its contents, a
// sub-slice of Buf. Any other string is declined, with Pos unmoved.
func (c *Cursor) PlainString() ([]byte, bool) {
	if c.Pos >= len(c.Buf) || c.Buf[c.Pos] != '"' {
		return nil, false
	}
	start := c.Pos + 1
	ascii := true
	for i := start; i < len(c.Buf); i++ {
		switch b := c.Buf[i]; {
		case b == '"':
			v := c.Buf[start:i]
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			c.Pos = i + 1
			return v, true
		case b == '\\' || b < 0x20:
			return nil, false
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// String reads the string after optional whitespace, checked and decoded
// as encoding/json does (Scanner's rules). With alias, a string that needs
// no decoding points into Buf instead of being copied: the caller must be
// done with it before Buf changes.
func (c *Cursor) String(alias bool) (string, bool) {
	if c.Peek() != '"' {
		return "", false
	}
	start, end, plain, err := stringSpan(c.Buf, c.Pos)
	if err != nil {
		return "", false
	}
	c.Pos = end + 1
	raw := c.Buf[start:end]
	switch {
	case !plain:
		return string(appendUnquoted(make([]byte, 0, len(raw)), raw)), true
	case alias:
		return unsafe.String(unsafe.SliceData(raw), len(raw)), true
	}
	return string(raw), true
}

// NumberText consumes the run of bytes a number is written with (digits,
// sign, point, exponent) and returns it, unchecked: the caller parses it.
func (c *Cursor) NumberText() []byte {
	start := c.Pos
	for c.Pos < len(c.Buf) && isNumberByte(c.Buf[c.Pos]) {
		c.Pos++
	}
	return c.Buf[start:c.Pos]
}

func isNumberByte(b byte) bool {
	return b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E'
}

// SkipValue moves past one value at Pos, trusting it to be well formed
// (the caller checks it, for instance with jsontext): a string to its
// closing quote, an object or array to the bracket that closes it, a
// literal or number to the next delimiter. An object or array nested
// deeper than maxDepth is declined.
func (c *Cursor) SkipValue(maxDepth int) bool {
	start := c.Pos
	if start >= len(c.Buf) {
		return false
	}
	switch c.Buf[start] {
	case '"':
		return c.skipString()
	case '{', '[':
	default:
		for c.Pos < len(c.Buf) && !isDelimiter(c.Buf[c.Pos]) {
			c.Pos++
		}
		return c.Pos > start
	}
	depth := 0
	for c.Pos < len(c.Buf) {
		switch c.Buf[c.Pos] {
		case '"':
			if !c.skipString() {
				return false
			}
			continue
		case '{', '[':
			if depth++; depth > maxDepth {
				return false
			}
		case '}', ']':
			if depth--; depth == 0 {
				c.Pos++
				return true
			}
		}
		c.Pos++
	}
	return false
}

func isDelimiter(b byte) bool {
	switch b {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// skipString moves past a string, escapes included.
func (c *Cursor) skipString() bool {
	for i := c.Pos + 1; i < len(c.Buf); i++ {
		switch c.Buf[i] {
		case '\\':
			i++
		case '"':
			c.Pos = i + 1
			return true
		}
	}
	return false
}
