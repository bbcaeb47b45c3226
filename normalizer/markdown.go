package normalizer

import "strings"

// The markdown line shapes the normalizer looks for, read with plain scans
// (they ran as regexps on every heading-like line of every cited chunk and
// answer). Each matches exactly what the regexp in its comment matches;
// markdown_oracle_test.go keeps the regexps and FuzzMarkdownScans holds
// the two together.

// isCodeFence: ^ {0,3}(```|~~~).
func isCodeFence(line string) bool {
	i := leadingSpaces(line)
	return strings.HasPrefix(line[i:], "```") || strings.HasPrefix(line[i:], "~~~")
}

// isHeadingLine: ^ {0,3}#{1,6}(\s|$), \s being \t \n \f \r or space.
func isHeadingLine(line string) bool {
	i := leadingSpaces(line)
	h := hashRun(line, i)
	if h == 0 || h > 6 {
		return false
	}
	i += h
	return i == len(line) || isRegexpSpace(line[i])
}

// atxHeading reads an ATX heading line, as
// ^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$ does: its level (the
// number of #) and its text, without the closing #s and blanks.
func atxHeading(line string) (level int, text string, ok bool) {
	i := leadingSpaces(line)
	h := hashRun(line, i)
	if h == 0 || h > 6 {
		return 0, "", false
	}
	rest := line[i+h:]
	if rest == "" {
		return h, "", true
	}
	if !isBlank(rest[0]) || strings.IndexByte(rest, '\n') >= 0 { // "." stops at a line break
		return 0, "", false
	}
	body := strings.TrimLeft(rest, " \t")
	t := len(strings.TrimRight(body, " \t"))
	q := t // a closing sequence: blanks, then #s up to the trailing blanks
	for q > 0 && body[q-1] == '#' {
		q--
	}
	b := q
	for b > 0 && isBlank(body[b-1]) {
		b--
	}
	if q < t && b < q {
		return h, body[:b], true
	}
	return h, body[:t], true
}

// customHeadingID is the id of a heading text ending in {#id}, as
// [ \t]*\{#([A-Za-z0-9_-]+)\}$ finds it.
func customHeadingID(text string) (string, bool) {
	end := len(text) - 1
	if end < 0 || text[end] != '}' {
		return "", false
	}
	k := end
	for k > 0 && isIDByte(text[k-1]) {
		k--
	}
	if k == end || k < 2 || text[k-2:k] != "{#" {
		return "", false
	}
	return text[k:end], true
}

func isIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// leadingSpaces counts up to 3 leading spaces.
func leadingSpaces(line string) int {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	return i
}

func hashRun(line string, i int) int {
	h := 0
	for i+h < len(line) && line[i+h] == '#' {
		h++
	}
	return h
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
