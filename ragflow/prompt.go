package ragflow

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/wikigate/wikigate/protocol"
)

// promptInstructions open the user message. RAGFlow drops system messages
// (CONTRACT §4.3), so the rules travel with the question. The block layout
// is RAGFlow's own kb_prompt layout ("ID: n" blocks), which is what its
// citation prompt and [ID:n] markers refer to.
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

// promptLabel matches lines that would read as a block or question header
// ("ID: 3", "Question: ..."); such lines inside retrieved content or a
// question are quoted so a document cannot forge blocks or questions.
var promptLabel = regexp.MustCompile(`(?i)^\s*(ID|Question)\s*[:：]`)

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
	b.WriteString(quoteLabels(strings.TrimSpace(c.Content)))
	b.WriteString("\n")
}

// oneLine folds a field onto one line so it cannot add lines to the prompt.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// quoteLabels prefixes "> " to content lines that look like block or
// question headers.
func quoteLabels(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if promptLabel.MatchString(l) {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
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
