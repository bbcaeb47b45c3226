package normalizer

import (
	"strconv"
	"strings"

	"github.com/wikigate/wikigate/ragflow"
)

// While an answer is rendered, the gate's own references are written as
// refOpen n refClose instead of "[n]". Dropping a marker can splice the text
// around it into a new one ("[ID:[0]0]" becomes "[ID:0]", "[[0]1]" becomes
// "[1]"), a reference nobody verified; with the gate's references still
// disguised, every marker left in the rendered text is such a splice and
// is removed before the references get their brackets. The two runes are
// private-use code points, removed from the model's text beforehand.
const (
	refOpen  = "\uE000"
	refClose = "\uE001"
)

// gateRef is the disguised reference [k].
func gateRef(k int) string { return string(appendGateRef(nil, k)) }

func appendGateRef(b []byte, k int) []byte {
	return append(strconv.AppendInt(append(b, refOpen...), int64(k), 10), refClose...)
}

// dropSentinels removes refOpen and refClose from the model's text.
func dropSentinels(s string) string { return replaceSentinels(s, "", "") }

// finishRefs removes spliced markers, then shows the gate's references.
func finishRefs(s string) string {
	return replaceSentinels(stripStrayMarkers(s), "[", "]")
}

// replaceSentinels is s with every refOpen replaced by open and every
// refClose by close, as strings.NewReplacer(refOpen, open, refClose,
// close).Replace does (the two are three bytes each, differing in the
// last, so matches never overlap); s itself when it holds neither.
func replaceSentinels(s, open, close string) string {
	lead := refOpen[:2] // both sentinels start with these two bytes
	i := strings.Index(s, lead)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for ; i >= 0 && i+2 < len(s); i = indexFrom(s, lead, i+1) {
		var with string
		switch s[i+2] {
		case refOpen[2]:
			with = open
		case refClose[2]:
			with = close
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(with)
		last = i + 3
		i += 2 // the next match starts after this one
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// indexFrom is the index of sub in s at or after from, or -1.
func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}

// stripStrayMarkers removes every marker of s, with the blanks before
// each, except bare "[n]" inside fenced code, which is code.
func stripStrayMarkers(s string) string {
	return ragflow.StripMarkersExcept(s, func(text string, m ragflow.Marker) bool {
		return m.Bare && inRanges(fencedRanges(text), m.Start)
	})
}

// fencedRanges are the byte ranges of s's fenced code blocks.
func fencedRanges(s string) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(s); {
		lineEnd := lineEndAt(s, pos)
		if isCodeFence(s[pos:lineEnd]) {
			end := fenceEnd(s, lineEnd)
			out = append(out, [2]int{pos, end})
			pos = lineEndAt(s, end)
			continue
		}
		pos = lineEnd
	}
	return out
}

func inRanges(rs [][2]int, at int) bool {
	for _, r := range rs {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}
