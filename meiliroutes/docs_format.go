package meiliroutes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryTerms is how many query words are highlighted: Meilisearch
// searches on the first ten words of a query.
const maxQueryTerms = 10

// queryTerm is one word of the query as the docs view matches it, as
// Meilisearch does without typo tolerance: a whole word, case-folded; the
// last word also as the start of a word (Meilisearch's prefix search); a
// word in a script written without spaces (Chinese, Japanese) anywhere.
type queryTerm struct {
	word   []rune
	prefix bool
	inside bool
}

// queryTerms splits the query into words (runs of letters, digits and
// marks), without repeats.
func queryTerms(q string) []queryTerm {
	words := strings.FieldsFunc(q, func(r rune) bool { return !isWordRune(r) })
	var out []queryTerm
	seen := map[string]bool{}
	for i, w := range words {
		w = strings.ToLower(w)
		if seen[w] || len(out) == maxQueryTerms {
			continue
		}
		seen[w] = true
		out = append(out, queryTerm{word: []rune(w), prefix: i == len(words)-1, inside: hasUnspacedScript(w)})
	}
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func hasUnspacedScript(w string) bool {
	for _, r := range w {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai) {
			return true
		}
	}
	return false
}

// matchAt is the end of t's match in s at byte i, or -1.
func (t queryTerm) matchAt(s string, i int) int {
	if !t.inside && i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWordRune(r) {
			return -1 // not the start of a word
		}
	}
	j := i
	for _, want := range t.word {
		r, size := utf8.DecodeRuneInString(s[j:])
		if size == 0 || unicode.ToLower(r) != want {
			return -1
		}
		j += size
	}
	if !t.inside && !t.prefix && j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); isWordRune(r) {
			return -1 // a longer word
		}
	}
	return j
}

// in reports whether t matches somewhere in s.
func (t queryTerm) in(s string) bool {
	for i := range s {
		if t.matchAt(s, i) >= 0 {
			return true
		}
	}
	return false
}

// highlightTerms wraps every match of a query word in pre and post.
func highlightTerms(s string, terms []queryTerm, pre, post string) string {
	if len(terms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		end := -1
		for _, t := range terms {
			if end = t.matchAt(s, i); end > i {
				break
			}
		}
		if end <= i {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(pre)
		b.WriteString(s[i:end])
		b.WriteString(post)
		i, last = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// cropWords keeps n words of s around its first match (from its start
// when nothing matches), with marker where text was cut, as Meilisearch
// crops.
func cropWords(s string, terms []queryTerm, n int, marker string) string {
	words := strings.Fields(s)
	if len(words) <= n {
		return s
	}
	first := 0
	for i, w := range words {
		if matchesAny(w, terms) {
			first = i
			break
		}
	}
	start := max(0, first-(n-1)/2)
	end := min(len(words), start+n)
	start = max(0, end-n)
	out := strings.Join(words[start:end], " ")
	if start > 0 {
		out = marker + out
	}
	if end < len(words) {
		out += marker
	}
	return out
}

func matchesAny(w string, terms []queryTerm) bool {
	for _, t := range terms {
		if t.in(w) {
			return true
		}
	}
	return false
}
