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
func gateRef(k int) string { return refOpen + strconv.Itoa(k) + refClose }

var (
	dropSentinels = strings.NewReplacer(refOpen, "", refClose, "")
	showRefs      = strings.NewReplacer(refOpen, "[", refClose, "]")
)

// finishRefs removes spliced markers, then shows the gate's references.
func finishRefs(s string) string {
	return showRefs.Replace(stripStrayMarkers(s))
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
