package ragflow

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// promptInstructions open the user message. RAGFlow drops system messages
// (docs/backends.md, RAGFlow wire details: Completion request), so the rules
// travel with the question. The block layout is RAGFlow's own kb_prompt
// layout ("ID: n" blocks), which is what its citation prompt and [ID:n]
// markers refer to.
const promptInstructions = `Answer the question at the end using only the numbered context blocks below.
Rules:
- Use only facts stated in the context blocks; do not use outside knowledge.
- Cite every sentence of your answer with the number of the block it comes from, written as [ID:n], for example [ID:0] or [ID:0][ID:2]. Every block starts with its number on a line of its own.
- If the context blocks do not answer the question, say plainly that the documentation does not answer it and cite nothing.
- Answer in the language of the question.`

// citedEarlierHeader introduces the pages trimmed session turns cited. They
// help the model read a follow-up ("and how do I configure it?") against
// what the conversation was about, but they are not evidence: only the
// numbered blocks may be cited.
const citedEarlierHeader = "Earlier in this conversation, answers cited these pages. They are background for the question, not context blocks: do not cite them."

// RoleCitedEarlier marks the history message CitedEarlier builds. It is
// never sent to RAGFlow as a turn: BuildPrompt moves its lines into the
// question's message.
const RoleCitedEarlier = "cited_earlier"

// A line of retrieved content or of a question that would read as a block
// or question header ("ID: 3", "Question: ...", as the case-insensitive
// pattern ^\s*(ID|Question)\s*[:：] says) is quoted so a document cannot
// forge blocks or questions: isPromptLabel.

// BuildPrompt builds the messages for Complete: history (prior turns,
// markers stripped, alternating user/assistant) and then ONE user message
// holding the instructions, the context blocks, the pages earlier turns
// cited (a RoleCitedEarlier history message, see CitedEarlier) and a final
// line "Question: <question>". Block n is chunks[n]:
//
//	ID: <n>
//	Title: <title>
//	Path: <path>
//	Content: <content>
//
// so a marker [ID:n] in the answer points at chunks[n]. Pass the chunks that
// passed the scope check, in the order Answer will receive them.
func BuildPrompt(question string, chunks []Chunk, history []Message) []Message {
	var b strings.Builder
	b.Grow(promptSize(question, chunks))
	b.WriteString(promptInstructions)
	b.WriteString("\n\nContext:\n")
	if len(chunks) == 0 {
		b.WriteString("(no context blocks)\n")
	}
	for i := range chunks {
		writeBlock(&b, i, &chunks[i])
	}
	writeCitedEarlier(&b, history)
	b.WriteString("\nQuestion: ")
	b.WriteString(oneLine(question))
	msgs := promptHistory(history)
	return append(msgs, Message{Role: RoleUser, Content: b.String()})
}

// promptSize is about the length of the prompt, so it is built in one
// allocation: the fixed text, each block's fields and labels, the question.
func promptSize(question string, chunks []Chunk) int {
	n := len(promptInstructions) + len(question) + 64
	for i := range chunks {
		c := &chunks[i]
		n += len(c.Content) + len(c.MetaString("title")) + len(c.MetaString("path")) + 48
	}
	return n
}

// CitedEarlier is the history message that lists the pages of citations,
// one "- title (path#anchor)" line each, once per page and anchor: the
// citation summary a session keeps of its trimmed turns. Pass it in
// BuildPrompt's history; without citations it is an empty message that
// BuildPrompt ignores.
func CitedEarlier(citations []protocol.Citation) Message {
	var lines []string
	seen := map[string]bool{}
	for _, c := range citations {
		where := oneLine(c.Path)
		if c.Anchor != "" {
			where += "#" + oneLine(c.Anchor)
		}
		if where == "" || seen[where] {
			continue
		}
		seen[where] = true
		title := oneLine(c.Title)
		if title == "" {
			title = where
		}
		lines = append(lines, "- "+title+" ("+where+")")
	}
	return Message{Role: RoleCitedEarlier, Content: strings.Join(lines, "\n")}
}

// writeCitedEarlier adds the CitedEarlier lines of history, if any, after
// the context blocks. Each line starts with "- ", so none can pass for a
// block or question header.
func writeCitedEarlier(b *strings.Builder, history []Message) {
	var lines []string
	for _, m := range history {
		if m.Role != RoleCitedEarlier {
			continue
		}
		for _, l := range strings.Split(m.Content, "\n") {
			if l = oneLine(l); l != "" {
				lines = append(lines, "- "+strings.TrimPrefix(l, "- "))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n")
	b.WriteString(citedEarlierHeader)
	b.WriteString("\n")
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n")
}

func writeBlock(b *strings.Builder, n int, c *Chunk) {
	b.WriteString("\nID: ")
	b.WriteString(strconv.Itoa(n))
	b.WriteString("\nTitle: ")
	b.WriteString(oneLine(c.MetaString("title")))
	b.WriteString("\nPath: ")
	b.WriteString(oneLine(c.MetaString("path")))
	b.WriteString("\nContent: ")
	writeQuoted(b, strings.TrimSpace(c.Content))
	b.WriteString("\n")
}

// oneLine folds a field onto one line so it cannot add lines to the prompt.
// A field that is already one line of single spaces (the usual title or
// path) is returned as it is.
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine: ASCII without leading, trailing, doubled or other blanks, so
// strings.Fields and Join would give s back.
func isOneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}

// writeQuoted writes s with "> " before each line that looks like a block
// or question header.
func writeQuoted(b *strings.Builder, s string) {
	for {
		line, rest, more := strings.Cut(s, "\n")
		if isPromptLabel(line) {
			b.WriteString("> ")
		}
		b.WriteString(line)
		if !more {
			return
		}
		b.WriteByte('\n')
		s = rest
	}
}

// isPromptLabel matches (?i)^\s*(ID|Question)\s*[:：] without a regexp:
// blanks (\t \n \f \r and space), one of the words under Unicode simple
// case folding (as (?i) matches: "ſ" is an "s"), blanks, a colon.
func isPromptLabel(line string) bool {
	i := skipRegexpSpace(line, 0)
	n, ok := foldedPrefix(line[i:], "id")
	if !ok {
		n, ok = foldedPrefix(line[i:], "question")
	}
	if !ok {
		return false
	}
	rest := line[skipRegexpSpace(line, i+n):]
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "：")
}

// skipRegexpSpace skips what \s matches in Go's regexp.
func skipRegexpSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

// foldedPrefix reports whether s starts with word (lower-case ASCII) under
// simple case folding, and how many bytes of s that is.
func foldedPrefix(s, word string) (int, bool) {
	n := 0
	for _, w := range word {
		r, size := utf8.DecodeRuneInString(s[n:])
		if size == 0 || !equalFoldRune(r, w) {
			return 0, false
		}
		n += size
	}
	return n, true
}

func equalFoldRune(r, w rune) bool {
	for f := unicode.SimpleFold(w); ; f = unicode.SimpleFold(f) {
		if r == f {
			return true
		}
		if f == w {
			return false
		}
	}
}

// promptHistory keeps user and assistant turns with their markers stripped
// (they number earlier prompts' blocks), merges consecutive turns of one
// role so roles alternate, and drops leading assistant turns (RAGFlow drops
// them too) and a trailing user turn that never got an answer (the new
// question follows it).
func promptHistory(history []Message) []Message {
	out := []Message{}
	for _, m := range history {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			continue
		}
		content := strings.TrimSpace(StripMarkers(m.Content))
		if content == "" || (len(out) == 0 && m.Role == RoleAssistant) {
			continue
		}
		if len(out) > 0 && out[len(out)-1].Role == m.Role {
			out[len(out)-1].Content += "\n\n" + content
			continue
		}
		out = append(out, Message{Role: m.Role, Content: content})
	}
	if len(out) > 0 && out[len(out)-1].Role == RoleUser {
		out = out[:len(out)-1]
	}
	return out
}
