package normalizer

// WordEnd, WordRune and IsCJK are the word rules of the grounding check
// (support.go), exported so retrieval's keyword sets split a question the
// same way the answer's support is measured.

// WordEnd is the end of the word starting at s[i]: letters, digits and
// "_", joined over ".", "-", "/", ":" between them.
func WordEnd(s string, i int) int { return wordEnd(s, i) }

// WordRune reports whether r is a letter, a digit or "_".
func WordRune(r rune) bool { return wordRune(r) }

// IsCJK reports whether r is Han, kana or Hangul.
func IsCJK(r rune) bool { return isCJK(r) }
