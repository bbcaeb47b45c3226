package normalizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMeiliPlainTextMatchesBuilder holds meiliPlainText (plain-text check,
// then one append pass) to the strings.Builder version it replaced, for any
// bytes, invalid UTF-8 included.
func FuzzMeiliPlainTextMatchesBuilder(f *testing.F) {
	for _, s := range []string{"…the memory window…", "…the <em>memory</em>\n\n  window…", " a", "a ", "a  b",
		"a\u00a0b", "bad \xff utf8", "\ufffd", "<em", "</em>x", "", " ", strings.Repeat("wörd ", 120)} {
		f.Add(s, 5, true)
		f.Add(s, 500, true)
		f.Add(s, 200, false)
	}
	f.Fuzz(func(t *testing.T, s string, limit int, strip bool) {
		if limit < 1 || limit > 600 {
			return
		}
		if got, want := meiliPlainText(s, limit, strip), meiliPlainTextBuilder(s, limit, strip); got != want {
			t.Fatalf("meiliPlainText(%q, %d, %v) = %q, want %q", s, limit, strip, got, want)
		}
	})
}

// TestPlainCropIsNotCopied checks the common case costs no allocation: a
// crop that is plain text already comes back as it is.
func TestPlainCropIsNotCopied(t *testing.T) {
	crop := "…the agent keeps a window of recent turns in memory and summarises older ones…"
	if allocs := testing.AllocsPerRun(100, func() { meiliPlainText(crop, meiliCropMaxRunes, true) }); allocs != 0 {
		t.Errorf("plain crop: %v allocations, want 0", allocs)
	}
	if got := meiliPlainText(crop, 10, true); utf8.RuneCountInString(got) != 11 || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to 10 runes: %q", got)
	}
}

// meiliPlainTextBuilder is the strings.Builder version meiliPlainText
// replaced, kept as its oracle: in one pass (it runs for every hit of every search),
// the text with <em>/</em> removed when stripTags is set (Meilisearch's
// default highlight tags: the gate asks for crops, not highlights, but a
// snippet must be plain text either way), every run of
// whitespace folded into one space, the ends trimmed, and cut after limit
// runes with "…".
func meiliPlainTextBuilder(s string, limit int, stripTags bool) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*limit+4))
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
		if n == limit {
			return b.String() + "…"
		}
		if space {
			if n+1 == limit {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			n, space = n+1, false
		}
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}
