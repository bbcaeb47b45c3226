package ragflow

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The prompt building the regexp-free one replaced, kept as the oracle of
// FuzzPromptQuoting.
var stdlibPromptLabel = regexp.MustCompile(`(?i)^\s*(ID|Question)\s*[:：]`)

func stdlibQuoteLabels(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if stdlibPromptLabel.MatchString(l) {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

func stdlibOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FuzzPromptQuoting holds writeQuoted and oneLine to the regexp and
// strings.Fields versions they replaced: the same prompt text for any
// content.
func FuzzPromptQuoting(f *testing.F) {
	for _, s := range []string{"ID: 3", " id：x", "Question : q\nID:1", "QUEſTION: x", "\f\rID\t:", "I D: x", "IDs: x",
		"question", "> ID: 1", "a  b", " a", "a ", "a\u00a0b", "a\tb", "", "ok line", "\xffID:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		writeQuoted(&b, s)
		if got, want := b.String(), stdlibQuoteLabels(s); got != want {
			t.Fatalf("%q: quoted %q, regexp %q", s, got, want)
		}
		if got, want := oneLine(s), stdlibOneLine(s); got != want {
			t.Fatalf("%q: oneLine %q, Fields %q", s, got, want)
		}
	})
}

var stdlibMarkerNumber = regexp.MustCompile(`\d+`)

// FuzzMarkerNumbers holds appendNumbers to the \d+ regexp it replaced.
func FuzzMarkerNumbers(f *testing.F) {
	for _, s := range []string{"0", "0, 2", "0, ID:2", "12，ID：3", "99999999999999999999", "", "a١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []int
		for _, num := range stdlibMarkerNumber.FindAllString(s, -1) {
			n, err := strconv.Atoi(num)
			if err != nil {
				n = -1
			}
			want = append(want, n)
		}
		if got := appendNumbers(nil, s); !slices.Equal(got, want) {
			t.Fatalf("%q: appendNumbers %v, regexp %v", s, got, want)
		}
	})
}

// FuzzBracketMarkers holds findMarkers' reading of the ASCII "[" forms
// (bracketMarker) to the anchored regexps it spares: the same markers,
// spans, numbers and bare flags, with and without the bare form.
func FuzzBracketMarkers(f *testing.F) {
	for _, s := range []string{"a [ID:0] b [ID:1][ID:2].", "[ID: 0, ID:2]", "[id : 3 ,4]", "[iD:1,]", "[ID:1，2]", "[ID：1]",
		"[1]", "[1, 2]", "a[0]", "[1](url)", "[ 12 ]", "[99999999999999999999]", "[ID:1", "[", "[ID:]", "[ID 1]",
		"[\f1\r,\n2\t]", "[١]", "[ID:1, ID：2]", "[ID:1, ID:2, 3]", "[1, ID:2]", "x [ID:0]] [[1]]", "【ID: 1】 (ID:2) ##3$$ [ID:4]",
		"[ID:1 , , 2]", "[ ID:007]", "é[1]", "[ID:0][1]", "[ID:01,ID:x]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, all := range []bool{false, true} {
			got, want := scanMarkers(all, s, true), scanMarkers(all, s, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (all %v):\nfast   %+v\nregexp %+v", s, all, got, want)
			}
		}
	})
}
