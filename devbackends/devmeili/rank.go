package devmeili

import (
	"math"
	"sort"
)

// docWords counts the normalised words of each searchable attribute of one
// document, in searchableAttributes order.
type docWords [3]map[string]int

func indexWords(doc orderedObject) docWords {
	var w docWords
	for i, attr := range searchableAttributes {
		w[i] = map[string]int{}
		v, _ := doc.get(attr)
		for _, s := range stringValues(v) {
			for _, t := range tokenize(s) {
				w[i][t.norm]++
			}
		}
	}
	return w
}

// attributeWeight ranks where a word matched: title > headings > content.
var attributeWeight = [3]float64{1.0, 0.7, 0.4}

// termMatch is how one query term matched one document.
type termMatch struct {
	matched bool
	typos   int
	attr    int // best attribute (index into searchableAttributes)
	count   int // occurrences at the best typo level
}

// matchTerm finds the best match of t in the searched attributes: fewest
// typos first, then the highest-ranked attribute.
func matchTerm(t queryTerm, w docWords, searchOn [3]bool) termMatch {
	best := termMatch{typos: math.MaxInt}
	for attr := range searchableAttributes {
		if !searchOn[attr] {
			continue
		}
		for word, n := range w[attr] {
			ok, typos, _ := t.match(word)
			if !ok {
				continue
			}
			switch {
			case typos < best.typos:
				best = termMatch{matched: true, typos: typos, attr: attr, count: n}
			case typos == best.typos:
				best.count += n
				best.attr = min(best.attr, attr)
			}
		}
	}
	return best
}

// scored is a candidate document with its ranking.
type scored struct {
	pos       int
	score     float64
	words     int // query words the document's bucket keeps
	typos     int
	attrScore float64
}

// rankDocs scores candidates for terms. Like the engine's "words" rule, a
// document's bucket is the longest run of terms, in the strategy's order,
// that it matches ("last" drops words from the end, "frequency" drops the
// most common words first, "all" keeps only full matches). Documents in a
// bigger bucket always rank higher; inside a bucket typos, attribute rank and
// term frequency decide. The score is normalised to 0..1.
func rankDocs(ix *index, candidates []int, terms []queryTerm, strategy string, searchOn [3]bool) []scored {
	matches := make(map[int][]termMatch, len(candidates))
	docFreq := make([]int, len(terms))
	for _, pos := range candidates {
		ms := make([]termMatch, len(terms))
		for i, t := range terms {
			ms[i] = matchTerm(t, ix.words[pos], searchOn)
			if ms[i].matched {
				docFreq[i]++
			}
		}
		matches[pos] = ms
	}
	order := termOrder(len(terms), strategy, docFreq)
	var out []scored
	for _, pos := range candidates {
		if s, ok := scoreDoc(matches[pos], order, strategy); ok {
			s.pos = pos
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// termOrder lists term indices from the most to the least important.
func termOrder(n int, strategy string, docFreq []int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if strategy == "frequency" {
		sort.SliceStable(order, func(a, b int) bool { return docFreq[order[a]] < docFreq[order[b]] })
	}
	return order
}

func scoreDoc(ms []termMatch, order []int, strategy string) (scored, bool) {
	kept := 0
	for _, i := range order {
		if !ms[i].matched {
			break
		}
		kept++
	}
	if kept == 0 || (strategy == "all" && kept < len(ms)) {
		return scored{}, false
	}
	var typos int
	var attr, freq float64
	for _, i := range order[:kept] {
		typos += ms[i].typos
		attr += attributeWeight[ms[i].attr]
		freq += math.Min(1, math.Log1p(float64(ms[i].count))/math.Log1p(10))
	}
	k := float64(kept)
	typoScore := math.Max(0, 1-float64(typos)/(2*k))
	inner := 0.2*typoScore + 0.45*attr/k + 0.35*freq/k
	score := (k - 1 + inner) / float64(len(ms))
	return scored{score: roundScore(score), words: kept, typos: typos, attrScore: roundScore(attr / k)}, true
}

// roundScore trims float noise so equal rankings compare equal.
func roundScore(f float64) float64 { return math.Round(f*1e12) / 1e12 }
