package ragflow

import (
	"regexp"
	"strconv"
	"strings"
)

// markerList is one or more block numbers: "0", "0, 2", "0, ID:2".
const markerList = `\d+(?:\s*[,，]\s*(?:ID\s*[:：]\s*)?\d+)*`

// markerPattern matches the citation markers LLMs write for RAGFlow
// prompts (CONTRACT §4.7): the canonical [ID:n], the variants RAGFlow itself
// rewrites ([ID: n], 【ID: n】, (ID: n)), full-width punctuation, several
// numbers in one marker, and the pre-v0.19 ##n$$.
var markerPattern = regexp.MustCompile(`(?i)` +
	`\[\s*ID\s*[:：]\s*(` + markerList + `)\s*\]` +
	`|【\s*ID\s*[:：]\s*(` + markerList + `)\s*】` +
	`|\(\s*ID\s*[:：]\s*(` + markerList + `)\s*\)` +
	`|（\s*ID\s*[:：]\s*(` + markerList + `)\s*）` +
	`|##(\d+)\$\$`)

var markerNumber = regexp.MustCompile(`\d+`)

// Marker is one citation marker in a generated answer: text[Start:End]
// names the prompt blocks Blocks. A number too large to be a block is -1.
type Marker struct {
	Start, End int
	Blocks     []int
}

// FindMarkers returns the citation markers of text in order.
func FindMarkers(text string) []Marker {
	var out []Marker
	for _, m := range markerPattern.FindAllStringSubmatchIndex(text, -1) {
		mk := Marker{Start: m[0], End: m[1]}
		for g := 1; g < len(m)/2; g++ {
			if m[2*g] < 0 {
				continue
			}
			for _, num := range markerNumber.FindAllString(text[m[2*g]:m[2*g+1]], -1) {
				n, err := strconv.Atoi(num)
				if err != nil {
					n = -1
				}
				mk.Blocks = append(mk.Blocks, n)
			}
		}
		out = append(out, mk)
	}
	return out
}

// StripMarkers removes every citation marker (and the space before it) from
// text: earlier answers' markers number blocks of earlier prompts.
func StripMarkers(text string) string {
	var b strings.Builder
	last := 0
	for _, m := range FindMarkers(text) {
		b.WriteString(strings.TrimRight(text[last:m.Start], " \t"))
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String()
}
