package devmeili

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// token is one word of a text: its normalised form and its byte range in
// the original, so highlights and match positions point at the source.
type token struct {
	norm       string
	start, end int
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokenize splits s into words of letters and digits, the way the engine's
// tokenizer separates words on spaces and punctuation.
func tokenize(s string) []token {
	var toks []token
	start := -1
	for i, r := range s {
		switch {
		case isWordRune(r) && start < 0:
			start = i
		case !isWordRune(r) && start >= 0:
			toks = append(toks, token{normalizeWord(s[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, token{normalizeWord(s[start:]), start, len(s)})
	}
	return toks
}

// normalizeWord lower-cases and strips diacritics ("Pésti" → "pesti"), as
// the engine's normaliser does for Latin scripts.
func normalizeWord(w string) string {
	w = strings.ToLower(w)
	if isASCII(w) {
		return w
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, w)
	if err != nil {
		return w
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// queryTerm is one word of the query. The last word is a prefix unless the
// query ends with a separator; longer words tolerate typos (the engine's
// defaults: one typo from 5 letters, two from 9).
type queryTerm struct {
	text     string
	prefix   bool
	maxTypos int
}

// maxQueryWords is the engine's limit; later words are ignored.
const maxQueryWords = 10

func parseQueryTerms(q string, stop map[string]bool) []queryTerm {
	toks := tokenize(q)
	if content := withoutStopWords(toks, stop); len(content) > 0 {
		toks = content
	}
	// The last word is typed "as you go" only if nothing follows it.
	lastIsPrefix := len(toks) > 0 && toks[len(toks)-1].end == len(q)
	if len(toks) > maxQueryWords {
		toks, lastIsPrefix = toks[:maxQueryWords], false
	}
	terms := make([]queryTerm, len(toks))
	for i, t := range toks {
		n := utf8.RuneCountInString(t.norm)
		terms[i] = queryTerm{text: t.norm, maxTypos: typoBudget(n)}
	}
	if len(terms) > 0 {
		terms[len(terms)-1].prefix = lastIsPrefix
	}
	return terms
}

// withoutStopWords drops stop words; a query made only of stop words keeps
// them, so it still finds something.
func withoutStopWords(toks []token, stop map[string]bool) []token {
	var out []token
	for _, t := range toks {
		if !stop[t.norm] {
			out = append(out, t)
		}
	}
	return out
}

func typoBudget(runeCount int) int {
	switch {
	case runeCount >= 9:
		return 2
	case runeCount >= 5:
		return 1
	}
	return 0
}

// match tells whether word (normalised) matches the term, with how many
// typos, and how many leading runes matched when it was a prefix match
// (-1: the whole word).
func (t queryTerm) match(word string) (ok bool, typos, prefixRunes int) {
	if word == t.text {
		return true, 0, -1
	}
	if t.prefix && strings.HasPrefix(word, t.text) {
		return true, 0, utf8.RuneCountInString(t.text)
	}
	if t.maxTypos > 0 {
		if d := typoCount(t.text, word, t.maxTypos); d <= t.maxTypos {
			return true, d, -1
		}
	}
	return false, 0, 0
}

// typoCount is the number of typos between a query word and a document
// word, as Meilisearch counts them (its typo tolerance docs): the edit
// distance, with a typo on the first character counted as two, so a word
// of 5 to 8 letters never matches with a different first letter.
func typoCount(query, word string, max int) int {
	d := boundedDistance(query, word, max)
	if d <= max && firstRune(query) != firstRune(word) {
		d++
	}
	return d
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// boundedDistance is the optimal-string-alignment distance of a and b (a
// swap of two neighbours counts as one typo, as in the engine), or max+1
// when it exceeds max.
func boundedDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	rows := make([][]int, len(ra)+1)
	for i := range rows {
		rows[i] = make([]int, len(rb)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		rowMin := rows[i][0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > max {
			return max + 1
		}
	}
	return rows[len(ra)][len(rb)]
}
