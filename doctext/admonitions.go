package doctext

import (
	"regexp"
	"strings"
)

var (
	// docusaurusAdmonition is ":::note Title", ":::tip[Title]" or ":::".
	docusaurusAdmonition = regexp.MustCompile(`^\s*:{3,}\s*([A-Za-z][\w-]*)?\s*(?:\[(.*)\]|(.*?))\s*(?:\{[^}]*\})?\s*$`)
	// mkdocsBlock is an admonition (!!! note "Title", ??? or ???+ for a
	// collapsible one) or a content tab (=== "Tab").
	// mkdocstrings is "::: package.name", an API reference rendered from
	// docstrings, with its options indented below it.
	mkdocstrings = regexp.MustCompile(`^:::\s+([\w.]+)\s*$`)
	mkdocsBlock  = regexp.MustCompile(`^(\s*)(?:(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*|===\+?)(?:\s+"(.*)")?\s*$`)
)

// rewriteAdmonitions keeps an admonition's title and body and drops its
// markers: Docusaurus's ::: fences everywhere, and for MkDocs its !!!/???
// admonitions and === tabs, whose bodies are indented four spaces (which
// CommonMark would read as code) and are dedented here.
func rewriteAdmonitions(src string, gen Generator) string {
	lines := strings.SplitAfter(src, "\n")
	var out []string
	var open *fence
	// body is the indentation of the MkDocs blocks being dedented, innermost last.
	var body []int
	options := false // skipping a mkdocstrings block's indented options
	for _, line := range lines {
		if options {
			if strings.TrimSpace(line) == "" || indentOf(line) > 0 {
				continue
			}
			options = false
		}
		if n := len(body); n > 0 && strings.TrimSpace(line) != "" && indentOf(line) < body[n-1] {
			for len(body) > 0 && indentOf(line) < body[len(body)-1] {
				body = body[:len(body)-1]
			}
		}
		if len(body) > 0 {
			line = dedent(line, body[len(body)-1])
		}
		switch {
		case open != nil:
			if open.closes(line) {
				open = nil
			}
		case isFenceLine(line, &open):
		case gen == MkDocs && mkdocstrings.MatchString(line):
			line, options = "\n"+mkdocstrings.FindStringSubmatch(line)[1]+"\n\n", true
		case gen == MkDocs && mkdocsBlock.MatchString(line):
			m := mkdocsBlock.FindStringSubmatch(line)
			base := 0
			if len(body) > 0 {
				base = body[len(body)-1]
			}
			body = append(body, base+len(m[1])+4)
			line = "\n" + m[2] + "\n\n"
		case docusaurusAdmonition.MatchString(line):
			m := docusaurusAdmonition.FindStringSubmatch(line)
			line = "\n" + strings.TrimSpace(m[2]+m[3]) + "\n\n"
		}
		out = append(out, line)
	}
	return strings.Join(out, "")
}

// isFenceLine sets *open when line opens a fenced code block.
func isFenceLine(line string, open **fence) bool {
	if f, ok := openFence(line); ok {
		*open = &f
		return true
	}
	return false
}

func indentOf(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}
