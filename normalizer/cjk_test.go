package normalizer

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzHasCJK holds what lowerText finds of CJK on its way (only non-ASCII
// runes looked at) to the plain definition: some rune of the text (an
// invalid byte read as U+FFFD) isCJK.
func FuzzHasCJK(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "dash — then 記憶", "é\xff\xfe", "한국어", "カタカナ", "\u1100", "\u10ff", "a\xe8\xa8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, got := lowerText(s); got != (strings.IndexFunc(s, isCJK) >= 0) {
			t.Fatalf("lowerText(%q) finds CJK %v", s, got)
		}
	})
}

// extractQuotesByteWise is extractQuotes as it was, a quote looked for at
// every byte and the rest copied byte by byte: the oracle of
// FuzzExtractQuotes.
func extractQuotesByteWise(s string, ct *claimTokens) string {
	if !strings.ContainsAny(s, "`\"“「") {
		return s
	}
	var rest strings.Builder
	for i := 0; i < len(s); {
		open, close, ok := quoteAt(s[i:])
		if ok {
			if j := strings.Index(s[i+len(open):], close); j > 0 && j <= maxQuoteBytes {
				span := strings.TrimSpace(s[i+len(open) : i+len(open)+j])
				if span != "" {
					ct.add(token{text: span, weight: weightQuote, kind: quoteToken})
				}
				i += len(open) + j + len(close)
				rest.WriteByte(' ')
				continue
			}
		}
		rest.WriteByte(s[i])
		i++
	}
	return rest.String()
}

// FuzzExtractQuotes: the same rest and the same quote tokens as the
// byte-wise version, for any text.
func FuzzExtractQuotes(f *testing.F) {
	for _, s := range []string{"", "no quotes", "set `memory.redis` and \"ttl\"", "“curly” and 「corner」 ``", "\"unclosed", "a\xe2\x80x “\xff”", "``x`` \"\" \"a\"b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want claimTokens
		if g, w := extractQuotes(s, &got), extractQuotesByteWise(s, &want); g != w || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: rest %q, tokens %+v\nwant rest %q, tokens %+v", s, g, got, w, want)
		}
	})
}
