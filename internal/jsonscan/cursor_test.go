package jsonscan

import (
	"encoding/json"
	"testing"
)

// Cursor.String reads a string as encoding/json decodes it (escapes,
// surrogate pairs, invalid UTF-8 and lone surrogates as U+FFFD) and
// refuses what encoding/json refuses; PlainString takes only strings that
// need no decoding, as sub-slices of the text.
func TestCursorStrings(t *testing.T) {
	for _, lit := range []string{
		`"plain"`, `"caf\u00e9 \"q\" \\ \/ \n\t"`, `"\ud83d\ude00"`, `"\ud800x"`, "\"\xff\xfe\"", `"é"`,
		`"bad \x"`, "\"ctl \x01\"", `"open`, `"\u12"`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want)
		for _, alias := range []bool{false, true} {
			c := Cursor{Buf: []byte("  " + lit + ",")}
			got, ok := c.String(alias)
			if ok != (wantErr == nil) || got != want {
				t.Errorf("String(%v) of %q = %q, %v; encoding/json: %q, %v", alias, lit, got, ok, want, wantErr)
			}
			if ok && c.Buf[c.Pos] != ',' {
				t.Errorf("String of %q stopped at %d", lit, c.Pos)
			}
		}
		c := Cursor{Buf: []byte(lit)}
		raw, ok := c.PlainString()
		plain := wantErr == nil && `"`+want+`"` == lit
		if ok != plain || (ok && string(raw) != want) {
			t.Errorf("PlainString of %q = %q, %v; want plain=%v", lit, raw, ok, plain)
		}
	}
}

// SkipValue finds the end of a value without decoding it, and declines
// nesting past its bound.
func TestCursorSkipValue(t *testing.T) {
	for _, c := range []struct {
		text  string
		depth int
		end   int // -1: declined
	}{
		{`{"a":["]",{"b":"}"}]},1`, 3, 21},
		{`[[[1]]]`, 2, -1},
		{`12.5e3,`, 1, 6},
		{`"a\"b" `, 1, 6},
		{`[1,2`, 4, -1},
	} {
		cur := Cursor{Buf: []byte(c.text)}
		ok := cur.SkipValue(c.depth)
		if (c.end < 0) == ok || (ok && cur.Pos != c.end) {
			t.Errorf("SkipValue(%d) of %q: %v at %d, want end %d", c.depth, c.text, ok, cur.Pos, c.end)
		}
	}
}
