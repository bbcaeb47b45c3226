package doctext

import "strings"

// fence is an open fenced code block: its marker run and indentation.
type fence struct {
	marker string // "```" or "~~~", as long as the opener's run
	indent int
}

// openFence reports whether line opens a fenced code block.
func openFence(line string) (fence, bool) {
	t := strings.TrimLeft(line, " \t")
	indent := len(line) - len(t)
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
			return fence{marker: t[:n], indent: indent}, true
		}
	}
	return fence{}, false
}

// closes reports whether line closes the fence.
func (f fence) closes(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, f.marker) && strings.Trim(t, f.marker[:1]) == ""
}

// dedent removes up to n leading spaces (a tab counts as one).
func dedent(line string, n int) string {
	i := 0
	for i < len(line) && i < n && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[i:]
}
