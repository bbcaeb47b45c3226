package ragflow

import (
	"regexp"
	"strconv"
	"strings"
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

// promptLabel matches lines that would read as a block or question header
// ("ID: 3", "Question: ..."); such lines inside retrieved content or a
// question are quoted so a document cannot forge blocks or questions.
var promptLabel = regexp.MustCompile(`(?i)^\s*(ID|Question)\s*[:：]`)

// BuildPrompt builds the messages for Complete: history (prior turns,
// markers stripped, alternating user/assistant) and then ONE user message
// holding the instructions, the context blocks and a final line
// "Question: <question>". Block n is chunks[n]:
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
	b.WriteString("\nQuestion: ")
	b.WriteString(oneLine(question))
	msgs := promptHistory(history)
	return append(msgs, Message{Role: RoleUser, Content: b.String()})
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
