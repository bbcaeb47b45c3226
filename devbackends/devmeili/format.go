package devmeili

import (
	"strings"
	"unicode/utf8"
)

// matchSpan is a matched part of a text, as byte offsets.
type matchSpan struct{ start, end int }

// matchPosition is one entry of _matchesPosition.
type matchPosition struct {
	Start   int   `json:"start"`
	Length  int   `json:"length"`
	Indices []int `json:"indices,omitempty"`
}

// formatter renders _formatted values and match positions for one query.
type formatter struct {
	terms     []queryTerm
	pre, post string
	marker    string
}

// matchesIn lists the words of s that match a query term. A prefix match
// covers only the matched prefix, as the engine highlights it.
func (f formatter) matchesIn(s string, toks []token) []matchSpan {
	var spans []matchSpan
	for _, t := range toks {
		best := -2 // -2: no match, -1: whole word, n: first n runes
		for _, term := range f.terms {
			ok, _, prefix := term.match(t.norm)
			if !ok {
				continue
			}
			if prefix == -1 {
				best = -1
				break
			}
			best = max(best, prefix)
		}
		switch {
		case best == -1:
			spans = append(spans, matchSpan{t.start, t.end})
		case best >= 0:
			spans = append(spans, matchSpan{t.start, t.start + runePrefixBytes(s[t.start:t.end], best)})
		}
	}
	return spans
}

func runePrefixBytes(s string, n int) int {
	i := 0
	for n > 0 && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return i
}

// format highlights and/or crops one string. cropLen < 0 means no cropping.
func (f formatter) format(s string, highlight bool, cropLen int) string {
	toks := tokenize(s)
	spans := f.matchesIn(s, toks)
	from, to, lead, trail := 0, len(s), false, false
	if cropLen >= 0 && len(toks) > cropLen {
		if cropLen == 0 {
			return f.marker
		}
		first := cropWindow(toks, spans, cropLen)
		last := first + cropLen - 1
		if first > 0 {
			from, lead = toks[first].start, true
		}
		if last < len(toks)-1 {
			to, trail = toks[last].end, true
		}
	}
	var b strings.Builder
	if lead {
		b.WriteString(f.marker)
	}
	at := from
	if highlight {
		for _, sp := range spans {
			if sp.start < from || sp.end > to {
				continue
			}
			b.WriteString(s[at:sp.start])
			b.WriteString(f.pre + s[sp.start:sp.end] + f.post)
			at = sp.end
		}
	}
	b.WriteString(s[at:to])
	if trail {
		b.WriteString(f.marker)
	}
	return b.String()
}

// cropWindow picks the first word of a window of n words: the window holding
// the most matches, then centred on them; the start of the text when nothing
// matched.
func cropWindow(toks []token, spans []matchSpan, n int) int {
	var matched []int
	si := 0
	for i, t := range toks {
		for si < len(spans) && spans[si].start < t.start {
			si++
		}
		if si < len(spans) && spans[si].start == t.start {
			matched = append(matched, i)
		}
	}
	if len(matched) == 0 {
		return 0
	}
	bestFirst, bestLast, bestCount := matched[0], matched[0], 0
	for a, i := range matched {
		count, last := 0, i
		for _, j := range matched[a:] {
			if j < i+n {
				count, last = count+1, j
			}
		}
		if count > bestCount {
			bestFirst, bestLast, bestCount = i, last, count
		}
	}
	start := bestFirst - (n-(bestLast-bestFirst+1))/2
	return max(0, min(start, len(toks)-n))
}

// formatValue applies format to a string or to each string of an array.
func (f formatter) formatValue(v any, highlight bool, cropLen int) any {
	switch t := v.(type) {
	case string:
		return f.format(t, highlight, cropLen)
	case []string:
		out := make([]string, len(t))
		for i, s := range t {
			out[i] = f.format(s, highlight, cropLen)
		}
		return out
	}
	return v
}

// positions lists the byte ranges matching the query in a string or array.
func (f formatter) positions(v any) []matchPosition {
	var out []matchPosition
	for i, s := range stringValues(v) {
		for _, sp := range f.matchesIn(s, tokenize(s)) {
			mp := matchPosition{Start: sp.start, Length: sp.end - sp.start}
			if _, isArray := v.([]string); isArray {
				mp.Indices = []int{i}
			}
			out = append(out, mp)
		}
	}
	return out
}
