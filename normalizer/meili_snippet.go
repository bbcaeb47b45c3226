package normalizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/meili"
)

// meiliSnippet is the crop Meilisearch made of the content (_formatted is
// only there when a crop or highlight was asked), else the start of the
// content; plain text, whitespace collapsed, markup removed (stripMarkup:
// a page's HTML is never a snippet's).
func meiliSnippet(h meili.Hit) string {
	if crop := string(h.Formatted.Content); strings.TrimSpace(crop) != "" {
		return meiliPlainText(stripMarkup(crop), meiliCropMaxRunes, true)
	}
	return meiliPlainText(stripMarkup(contentHead(h.Content)), meiliSnippetRunes, false)
}

// contentHead is enough of a page's content to make a snippet from, even
// after its markup is removed: a snippet never reads a whole page.
func contentHead(s string) string {
	const most = 64 << 10
	if len(s) <= most {
		return s
	}
	return s[:most]
}

// meiliPlainText is the text with <em>/</em> removed when stripTags is set
// (Meilisearch's default highlight tags: the gate asks for crops, not
// highlights, but a snippet must be plain text either way), every run of
// whitespace folded into one space, the ends trimmed, and cut after limit
// runes with "…". It runs for every hit of every search, and a crop
// usually is plain text already: that is checked first and returned as it
// is, without a copy.
func meiliPlainText(s string, limit int, stripTags bool) string {
	if isPlainText(s, limit, stripTags) {
		return s
	}
	var buf [1024]byte
	return string(appendPlainText(buf[:0], s, limit, stripTags))
}

// isPlainText reports whether meiliPlainText would return s unchanged:
// valid UTF-8 of at most limit runes, no tag to strip, and no whitespace
// but single spaces between other characters.
func isPlainText(s string, limit int, stripTags bool) bool {
	n, afterSpace := 0, true
	for i := 0; i < len(s); n++ {
		// Runs of ASCII that is neither space nor '<' need no look.
		if j := wordRun(s, i); j > i {
			n, i, afterSpace = n+j-i, j, false
			if n > limit || i == len(s) {
				break
			}
		}
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 1 || unicode.IsSpace(r) {
				return false
			}
			i, afterSpace = i+size, false
		case c == ' ':
			if afterSpace {
				return false
			}
			i, afterSpace = i+1, true
		case c == '<':
			if stripTags && (strings.HasPrefix(s[i:], "<em>") || strings.HasPrefix(s[i:], "</em>")) {
				return false
			}
			i, afterSpace = i+1, false
		default: // whitespace other than a space
			return false
		}
		if n >= limit {
			return false
		}
	}
	return n <= limit && (!afterSpace || s == "")
}

// wordRun is the end of the run of wordByte bytes starting at i.
func wordRun(s string, i int) int {
	for i < len(s) && wordByte[s[i]] {
		i++
	}
	return i
}

// wordByte marks the ASCII bytes that are text as they stand: neither
// whitespace nor '<', which may open a highlight tag.
var wordByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !asciiSpace[c] && c != '<'
	}
	return t
}()

// appendPlainText appends meiliPlainText's result to b, in one pass.
func appendPlainText(b []byte, s string, limit int, stripTags bool) []byte {
	n, space := 0, false
	for i := 0; i < len(s); {
		if stripTags && s[i] == '<' {
			if strings.HasPrefix(s[i:], "<em>") {
				i += 4
				continue
			}
			if strings.HasPrefix(s[i:], "</em>") {
				i += 5
				continue
			}
		}
		// Most text is ASCII: its bytes are runes and need no decoding.
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if isSpace(r) {
			space = n > 0
			continue
		}
		if n == limit || space && n+1 == limit {
			return append(b, "…"...)
		}
		if space {
			b = append(b, ' ')
			n, space = n+1, false
		}
		b = utf8.AppendRune(b, r)
		n++
	}
	return b
}

// isSpace is unicode.IsSpace with the ASCII answers looked up directly.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
