package devragflow

import (
	"math"
	"strings"
	"unicode"
)

// Retrieval here is lexical, a stand-in for RAGFlow's hybrid search: the
// "term" score is the idf-weighted share of query terms a chunk holds, and
// the "vector" score is a cosine over idf-weighted term vectors. Both stay
// within 0..1 so callers see score ranges like the real ones.

// stopwords are dropped from queries so "what is X" ranks on X.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been am of to in on for and or not
		how what which who whom why when where do does did i you we they he she it its this that these
		those with by as at from can could should would will shall may might must my our your their me
		us about please tell explain there here if then than so such any some into over under
		的 是 了 在 和 与 吗 呢 么 什 怎 如 何 请 我 你 们 这 那 个 有 吧`) {
		stopwords[w] = true
	}
}

// tokenize lowercases s and splits it into words of letters and digits;
// each Han character is a word of its own.
func tokenize(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// queryTerms are the distinct non-stopword terms of a question; a question
// made only of stopwords keeps them all.
func queryTerms(question string) []string {
	var all, kept []string
	seen := map[string]bool{}
	for _, t := range tokenize(question) {
		if seen[t] {
			continue
		}
		seen[t] = true
		all = append(all, t)
		if !stopwords[t] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return all
	}
	return kept
}

func termFrequencies(s string) map[string]int {
	tf := map[string]int{}
	for _, t := range tokenize(s) {
		tf[t]++
	}
	return tf
}

// inverseDocumentFrequency is computed over chunks, like a per-chunk index.
func inverseDocumentFrequency(chunks []*chunk) map[string]float64 {
	df := map[string]int{}
	for _, c := range chunks {
		for t := range c.terms {
			df[t]++
		}
	}
	idf := make(map[string]float64, len(df))
	for t, n := range df {
		idf[t] = math.Log(1 + float64(len(chunks))/float64(1+n))
	}
	return idf
}

func (m *model) termIDF(t string) float64 {
	if v, ok := m.idf[t]; ok {
		return v
	}
	return math.Log(1 + float64(len(m.chunks)))
}

// scores of one chunk against one question.
type scores struct {
	similarity, vector, term float64
}

// score rates c for the query terms; ok is false when no term occurs in the
// chunk at all (a full-text engine would not have recalled it).
func (m *model) score(terms []string, c *chunk, vectorWeight float64) (scores, bool) {
	var matched, total, dot, qNorm float64
	for _, t := range terms {
		w := m.termIDF(t)
		total += w
		qNorm += w * w
		if tf := c.terms[t]; tf > 0 {
			matched += w
			dot += w * w * (1 + math.Log(float64(tf)))
		} else if c.title[t] {
			matched += w / 2
		}
	}
	if matched == 0 || total == 0 {
		return scores{}, false
	}
	s := scores{term: matched / total}
	if c.norm > 0 && qNorm > 0 {
		s.vector = math.Min(1, dot/(math.Sqrt(qNorm)*c.norm))
	}
	s.similarity = (1-vectorWeight)*s.term + vectorWeight*s.vector
	return s, true
}

func (m *model) chunkNorm(c *chunk) float64 {
	var sum float64
	for t, tf := range c.terms {
		w := m.termIDF(t) * (1 + math.Log(float64(tf)))
		sum += w * w
	}
	return math.Sqrt(sum)
}

// highlight wraps every query term found in text in <em>…</em>, as
// RAGFlow's highlight field does.
func highlight(text string, terms []string) string {
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	var out, word strings.Builder
	flush := func() {
		if w := word.String(); w != "" {
			if want[strings.ToLower(w)] {
				out.WriteString("<em>" + w + "</em>")
			} else {
				out.WriteString(w)
			}
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			word.WriteRune(r)
			flush()
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		default:
			flush()
			out.WriteRune(r)
		}
	}
	flush()
	return out.String()
}
