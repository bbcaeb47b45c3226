package ragflow

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// markerList is one or more block numbers: "0", "0, 2", "0, ID:2".
const markerList = `\d+(?:\s*[,，]\s*(?:ID\s*[:：]\s*)?\d+)*`

// markerPattern matches the citation markers LLMs write for RAGFlow prompts
// (docs/backends.md, RAGFlow wire details: Citation markers): the canonical
// [ID:n], the variants RAGFlow itself rewrites ([ID: n], 【ID: n】, (ID: n)),
// full-width punctuation, several numbers in one marker, and the pre-v0.19
// ##n$$.
var markerPattern = regexp.MustCompile(`(?i)` +
	`\[\s*ID\s*[:：]\s*(` + markerList + `)\s*\]` +
	`|【\s*ID\s*[:：]\s*(` + markerList + `)\s*】` +
	`|\(\s*ID\s*[:：]\s*(` + markerList + `)\s*\)` +
	`|（\s*ID\s*[:：]\s*(` + markerList + `)\s*）` +
	`|##(\d+)\$\$`)

// allMarkerPattern adds the bare reference "[n]" / "[n, m]": what the gate
// writes into answers (numbering the returned citations) and what LLMs
// often write instead of [ID:n].
var allMarkerPattern = regexp.MustCompile(markerPattern.String() + `|\[\s*(\d+(?:\s*[,，]\s*\d+)*)\s*\]`)

// Marker is one citation marker in a generated answer: text[Start:End]
// names the prompt blocks Blocks. A number too large to be a block is -1.
// Bare is set for the bare "[n]" form.
type Marker struct {
	Start, End int
	Blocks     []int
	Bare       bool
}

// FindMarkers returns the RAGFlow-style citation markers of text in order
// ([ID:n] and its variants; not the bare "[n]").
func FindMarkers(text string) []Marker {
	return findMarkers(false, text)
}

// FindAllMarkers is FindMarkers plus the bare "[n]" references. A bare
// reference right after a letter, digit or "_" ("items[0]") or right before
// "(" (a markdown link "[1](url)") is not a marker: it is code or a link.
func FindAllMarkers(text string) []Marker {
	return findMarkers(true, text)
}

// anchored patterns match one marker at a candidate position: scanning
// for the few characters a marker starts with and matching there is many
// times cheaper than running the alternation over the whole text.
var (
	markerAt    = regexp.MustCompile(`^(?:` + markerPattern.String() + `)`)
	allMarkerAt = regexp.MustCompile(`^(?:` + allMarkerPattern.String() + `)`)
)

// mayStartMarker: the first bytes of every marker form ("【" and "（"
// start with 0xE3 and 0xEF).
func mayStartMarker(b byte) bool {
	return b == '[' || b == '(' || b == '#' || b == 0xE3 || b == 0xEF
}

func findMarkers(all bool, text string) []Marker {
	return scanMarkers(all, text, true)
}

// scanMarkers is findMarkers; fast lets bracketMarker read the ASCII "["
// forms (false: the regexp reads every candidate, FuzzBracketMarkers'
// oracle).
func scanMarkers(all bool, text string, fast bool) []Marker {
	re := markerAt
	if all {
		re = allMarkerAt
	}
	var out []Marker
	for i := 0; i < len(text); {
		if !mayStartMarker(text[i]) {
			i++
			continue
		}
		if fast && text[i] == '[' {
			if mk, matched, decided := bracketMarker(text, i, all); decided {
				if !matched {
					i++
					continue
				}
				if !mk.Bare || bareMarkerStands(text, mk.Start, mk.End) {
					out = append(out, mk)
				}
				i = mk.End
				continue
			}
		}
		m := re.FindStringSubmatchIndex(text[i:])
		if m == nil {
			i++
			continue
		}
		if mk, ok := markerOf(text, i, m); ok {
			out = append(out, mk)
		}
		i += max(m[1], 1)
	}
	return out
}

// markerOf reads the match m of text[at:] (submatch indexes).
func markerOf(text string, at int, m []int) (Marker, bool) {
	mk := Marker{Start: at + m[0], End: at + m[1], Bare: len(m) > 12 && m[12] >= 0}
	if mk.Bare && !bareMarkerStands(text, mk.Start, mk.End) {
		return mk, false
	}
	for g := 1; g < len(m)/2; g++ {
		if m[2*g] < 0 {
			continue
		}
		mk.Blocks = appendNumbers(mk.Blocks, text[at+m[2*g]:at+m[2*g+1]])
	}
	return mk, true
}

// appendNumbers appends each run of ASCII digits in s (what \d+ finds), as
// a block number, -1 for one too large to be a block.
func appendNumbers(blocks []int, s string) []int {
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil {
			n = -1
		}
		blocks = append(blocks, n)
		i = j
	}
	return blocks
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// bareMarkerStands: text[start:end] is a bare "[n]" that is neither an index
// ("a[0]") nor a link text ("[1](url)").
func bareMarkerStands(text string, start, end int) bool {
	if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && IsWordRune(r) {
		return false
	}
	return !strings.HasPrefix(text[end:], "(")
}

// IsWordRune is a letter, a digit or "_": what may not touch a bare marker.
func IsWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// StripMarkers removes every citation marker, bare references included
// (and the blanks before each), from text: earlier answers' markers number
// blocks of earlier prompts, or citations of earlier turns.
func StripMarkers(text string) string {
	return StripMarkersExcept(text, nil)
}

// StripMarkersExcept removes the markers of text that keep (when set) does
// not keep, with the blanks before each. It repeats until none is left,
// since a removal can splice the text around it into a new marker
// ("[ID:[0]0]"); each pass shortens the text, so it ends. keep gets the
// text of the current pass and one of its markers.
func StripMarkersExcept(text string, keep func(text string, m Marker) bool) string {
	for {
		var b strings.Builder
		last := 0
		for _, m := range FindAllMarkers(text) {
			if keep != nil && keep(text, m) {
				continue
			}
			b.WriteString(strings.TrimRight(text[last:m.Start], " \t"))
			last = m.End
		}
		if last == 0 {
			return text
		}
		b.WriteString(text[last:])
		text = b.String()
	}
}
