package doctext

import (
	"strings"
)

// maxJoin bounds the lines one JSX tag, expression or comment may span.
const maxJoin = 40

// rewriteMDX turns MDX into CommonMark text goldmark reads as the page
// shows it: ES module lines (import/export) and {/* */} comments go, JSX
// tags become the text of the props a reader sees (keptProps) on a
// paragraph of their own, so a component's children parse as Markdown,
// expressions go (a string literal's text stays), and indentation, which
// MDX ignores outside code, is dropped so a component's indented children
// do not become code blocks. Code (fenced blocks, code spans) is untouched.
func rewriteMDX(src string) string {
	lines := strings.SplitAfter(src, "\n")
	var out strings.Builder
	for i := 0; i < len(lines); {
		line := lines[i]
		if f, ok := openFence(line); ok {
			i = copyFence(&out, lines, i, f)
			continue
		}
		if isModuleLine(line) {
			i = skipModule(lines, i)
			continue
		}
		text, next := line, i+1
		res, complete := rewriteJSX(text)
		for !complete && next < len(lines) && next-i < maxJoin && strings.TrimSpace(lines[next]) != "" {
			text += lines[next]
			next++
			res, complete = rewriteJSX(text)
		}
		if !complete { // not a tag after all: the first line as text
			res, next = rewriteLiteral(line), i+1
		}
		out.WriteString(res)
		i = next
	}
	return out.String()
}

// copyFence copies a fenced block, dedented by its opener's indentation,
// and returns the line after it.
func copyFence(out *strings.Builder, lines []string, i int, f fence) int {
	out.WriteString(dedent(lines[i], f.indent))
	for i++; i < len(lines); i++ {
		out.WriteString(dedent(lines[i], f.indent))
		if f.closes(lines[i]) {
			return i + 1
		}
	}
	return i
}

// isModuleLine is an MDX ESM statement: import or export at the start of
// a line.
func isModuleLine(line string) bool {
	return strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "export ") ||
		strings.HasPrefix(line, "import{") || strings.HasPrefix(line, "export{")
}

// skipModule skips one ESM statement, which ends where its brackets close
// (an `export const x = {` spans lines), and returns the next line.
func skipModule(lines []string, i int) int {
	depth := 0
	for j := i; j < len(lines) && j-i < 400; j++ {
		depth += bracketBalance(lines[j])
		if depth <= 0 {
			return j + 1
		}
	}
	return i + 1
}

func bracketBalance(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case '{', '(', '[':
			n++
		case '}', ')', ']':
			n--
		}
	}
	return n
}

// rewriteLiteral is the line with tags it cannot read left as text (the
// final pass strips what still looks like markup), indentation dropped.
func rewriteLiteral(line string) string {
	return strings.TrimLeft(line, " \t")
}

// rewriteJSX rewrites text (one line, or a tag spanning several), and
// reports false when a tag, expression or comment is left open at its end.
func rewriteJSX(text string) (string, bool) {
	var b strings.Builder
	onlyTags, sawTag := true, false
	heading := strings.HasPrefix(strings.TrimLeft(text, " \t"), "#")
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '`':
			n := copyCodeSpan(&b, text[i:])
			i += n
			onlyTags = false
		case c == '\\' && i+1 < len(text):
			b.WriteString(text[i : i+2])
			i += 2
			onlyTags = false
		case c == '{':
			n, ok := rewriteBrace(&b, text[i:], heading)
			if !ok {
				return "", false
			}
			i += n
		case c == '<' && i+1 < len(text) && startsTag(text[i+1]):
			t, n := scanTag(text[i:])
			switch {
			case n < 0:
				return "", false
			case n == 0:
				b.WriteByte('<')
				i++
				onlyTags = false
				continue
			}
			sawTag = true
			if skip, ok := skipRawBody(t, text[i+n:]); !ok {
				return "", false
			} else {
				i += n + skip
			}
			if kept := t.keptText(); kept != "" {
				b.WriteString(" " + kept + " ")
			}
		default:
			if c != ' ' && c != '\t' && c != '\n' {
				onlyTags = false
			}
			b.WriteByte(c)
			i++
		}
	}
	res := strings.TrimLeft(b.String(), " \t")
	if sawTag && onlyTags {
		// A line of tags alone: its own paragraph, so the component's
		// children around it parse as Markdown blocks.
		return "\n" + strings.TrimSpace(res) + "\n\n", true
	}
	return res, true
}

// copyCodeSpan copies a code span starting at s[0] ('`') verbatim and
// returns its length; an unmatched run of backticks is copied alone.
func copyCodeSpan(b *strings.Builder, s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	run := s[:n]
	for j := n; j < len(s); {
		k := strings.Index(s[j:], run)
		if k < 0 {
			break
		}
		end := j + k + n
		if end >= len(s) || s[end] != '`' {
			b.WriteString(s[:end])
			return end
		}
		j = end
		for j < len(s) && s[j] == '`' {
			j++
		}
	}
	b.WriteString(run)
	return n
}

// rewriteBrace drops an MDX expression or {/* comment */} at s[0], keeps a
// string literal's text and a heading's {#id}, and returns its length;
// false when it does not close in s.
func rewriteBrace(b *strings.Builder, s string, heading bool) (int, bool) {
	if strings.HasPrefix(s, "{/*") {
		end := strings.Index(s, "*/}")
		if end < 0 {
			return 0, false
		}
		return end + 3, true
	}
	end := matchBrace(s)
	if end < 0 {
		return 0, false
	}
	expr := strings.TrimSpace(s[1:end])
	switch {
	case heading && strings.HasPrefix(expr, "#"):
		b.WriteString(s[:end+1])
	case len(expr) >= 2 && strings.ContainsRune(`'"`+"`", rune(expr[0])) && expr[len(expr)-1] == expr[0]:
		b.WriteString(expr[1 : len(expr)-1])
	}
	return end + 1, true
}

// matchBrace is the index of the brace closing s[0], skipping strings.
func matchBrace(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// skipRawBody skips the body of a <script> or <style> tag up to and with
// its closing tag; false when it does not close in s.
func skipRawBody(t tag, s string) (int, bool) {
	name := strings.ToLower(t.name)
	if t.closing || t.selfClosing || (name != "script" && name != "style") {
		return 0, true
	}
	end := strings.Index(strings.ToLower(s), "</"+name)
	if end < 0 {
		return 0, false
	}
	gt := strings.IndexByte(s[end:], '>')
	if gt < 0 {
		return 0, false
	}
	return end + gt + 1, true
}
