package normalizer

import (
	"regexp"
	"strings"
	"testing"
)

// The regexps the markdown scans replaced, kept as their oracle.
var (
	stdlibATXHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	stdlibCustomID    = regexp.MustCompile(`[ \t]*\{#([A-Za-z0-9_-]+)\}$`)
	stdlibCodeFence   = regexp.MustCompile("^ {0,3}(```|~~~)")
	stdlibHeadingLine = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)
)

// FuzzMarkdownScans holds isCodeFence, isHeadingLine, atxHeading and
// customHeadingID to the regexps they replaced, on any line.
func FuzzMarkdownScans(f *testing.F) {
	for _, s := range []string{"## Memory backends", "# Title", "### a ###", "## #", "##  ##", "## foo#", "##", "#######",
		"    ## x", "   ```go", "~~~", " ~~", "## Title {#custom-id}", "## {#x}", "##\tx\t#\t", "#\n", "## x {#a b}",
		"## x {#}", "{#id}", "## [link](u) text", "#\fx", "## \xff #", "##x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := isCodeFence(line), stdlibCodeFence.MatchString(line); got != want {
			t.Fatalf("%q: isCodeFence %v, regexp %v", line, got, want)
		}
		if got, want := isHeadingLine(line), stdlibHeadingLine.MatchString(line); got != want {
			t.Fatalf("%q: isHeadingLine %v, regexp %v", line, got, want)
		}
		level, text, ok := atxHeading(line)
		m := stdlibATXHeading.FindStringSubmatch(line)
		if ok != (m != nil) || ok && (level != len(m[1]) || text != m[2]) {
			t.Fatalf("%q: atxHeading %d %q %v, regexp %q", line, level, text, ok, m)
		}
		id, ok := customHeadingID(line)
		idm := stdlibCustomID.FindStringSubmatch(line)
		if ok != (idm != nil) || ok && id != idm[1] {
			t.Fatalf("%q: customHeadingID %q %v, regexp %q", line, id, ok, idm)
		}
	})
}

// FuzzLowerText holds lowerText to strings.ToLower.
func FuzzLowerText(f *testing.F) {
	for _, s := range []string{"Agent Memory — Redis", "ÉCOLE", "plain", "", "a\xffB", "İstanbul", "ΣΑΣ", "K Kelvin", "\uFFFD",
		"é the quick brown fox jumps over the lazy dog@[`{ AZ", "—abcdefgh@ABCDEFGZ[\x7f\x00abcdefgé", "é" + strings.Repeat("abcdefg", 5) + "Q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, _ := lowerText(s); got != strings.ToLower(s) {
			want := strings.ToLower(s)
			t.Fatalf("%q: lowerText %q, strings.ToLower %q", s, got, want)
		}
	})
}
