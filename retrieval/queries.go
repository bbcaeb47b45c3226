// Package retrieval decides what the gate asks RAGFlow for a question
// (docs/operators.md, "Retrieval"): the question as typed, and with
// retrieval { queries N } up to two more keyword sets, whose chunks are
// merged by chunk and re-sorted by score. It holds no scope: every query
// it returns goes through the same decided datasets and paths.
package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/normalizer"
)

// MaxQueries bounds retrieval { queries N }: the question, its keywords
// and its names.
const MaxQueries = 3

// Queries are the texts to retrieve with for a question, at most n (1 to
// MaxQueries), without repeats or empty ones, the question first:
//
//  1. the question as typed;
//  2. its keywords: its words less stop words and the words that only
//     frame a question ("how many", "what happens"), so that a page is
//     ranked on what the question is about (in a question mixing CJK and
//     Latin words, its Latin words: the names a page about the subject
//     spells the same in any language);
//  3. its names: identifiers, numbers, capitalised and hyphenated words.
func Queries(question string, n int) []string {
	out := []string{question}
	if n <= 1 {
		return out
	}
	words := splitWords(question)
	for _, q := range []string{keywords(words), names(words)} {
		if len(out) == n {
			break
		}
		if q != "" && !containsFold(out, q) {
			out = append(out, q)
		}
	}
	return out
}

// word is one word of a question and whether it opens it.
type word struct {
	text  string
	first bool
	cjk   bool
}

// splitWords splits a question into words: runs of letters, digits and
// "_", joined over ".", "-", "/" and ":" between them ("memory.ttl",
// "kunora-gateway", "HTTP/2"); a CJK run is one word.
func splitWords(s string) []word {
	var out []word
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			j := i
			for j < len(s) {
				r2, m := utf8.DecodeRuneInString(s[j:])
				if !isCJK(r2) {
					break
				}
				j += m
			}
			out = append(out, word{text: s[i:j], first: len(out) == 0, cjk: true})
			i = j
		case wordRune(r):
			j := wordEnd(s, i)
			out = append(out, word{text: s[i:j], first: len(out) == 0})
			i = j
		default:
			i += n
		}
	}
	return out
}

// The word rules are the grounding check's (normalizer.WordEnd), so a
// keyword set holds the words an answer's support is measured in.
var (
	wordEnd  = normalizer.WordEnd
	wordRune = normalizer.WordRune
	isCJK    = normalizer.IsCJK
)

// keywords joins the words that are not stop words; CJK runs lose their
// question words and particles. A question mixing CJK and Latin words
// keeps its Latin ones only: they are its identifiers and product names,
// spelled the same on a page in any language, and the CJK text is already
// in the question as typed.
func keywords(words []word) string {
	if latin := latinKeywords(words); latin != "" {
		return latin
	}
	var kept []string
	for _, w := range words {
		if w.cjk {
			if t := stripCJKStopWords(w.text); t != "" {
				kept = append(kept, t)
			}
			continue
		}
		if !isStopWord(strings.ToLower(w.text)) {
			kept = append(kept, w.text)
		}
	}
	return strings.Join(kept, " ")
}

// latinKeywords are the non-stop Latin words of a question with CJK
// text, or "" for a question without CJK text.
func latinKeywords(words []word) string {
	hasCJK := false
	for _, w := range words {
		hasCJK = hasCJK || w.cjk
	}
	if !hasCJK {
		return ""
	}
	var kept []string
	for _, w := range words {
		if !w.cjk && !isStopWord(strings.ToLower(w.text)) {
			kept = append(kept, w.text)
		}
	}
	return strings.Join(kept, " ")
}

// names joins the words that name something: an identifier or number
// (a digit, "_", ".", "/", ":" or an inner capital), a hyphenated or
// all-capital word, and a capitalised word that does not open the
// question.
func names(words []word) string {
	var kept []string
	for _, w := range words {
		if !w.cjk && isName(w) {
			kept = append(kept, w.text)
		}
	}
	return strings.Join(kept, " ")
}

func isName(w word) bool {
	t := w.text
	switch {
	case strings.ContainsAny(t, "0123456789_./:-"):
		return utf8.RuneCountInString(t) > 1
	case allUpper(t):
		return true
	}
	for i, r := range t {
		if unicode.IsUpper(r) && (i > 0 || !w.first) {
			return t != "I"
		}
	}
	return false
}

func allUpper(t string) bool {
	letters := 0
	for _, r := range t {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// SearchText is what the gate asks Meilisearch for a question: its
// keywords (Queries' second), or the question as typed when it has none.
func SearchText(question string) string {
	if k := keywords(splitWords(question)); k != "" {
		return k
	}
	return question
}
