package normalizer

import (
	"strings"
	"testing"
)

// FuzzHasCJK holds hasCJK's ASCII skipping to the plain definition: some
// rune of the text (an invalid byte read as U+FFFD) isCJK.
func FuzzHasCJK(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "dash — then 記憶", "é\xff\xfe", "한국어", "カタカナ", "\u1100", "\u10ff", "a\xe8\xa8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasCJK(s), strings.IndexFunc(s, isCJK) >= 0; got != want {
			t.Fatalf("hasCJK(%q) = %v, want %v", s, got, want)
		}
	})
}
