package devragflow

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Generation here is extractive, a stand-in for the tenant's LLM: the prompt
// carries retrieved chunks as "ID: n" blocks (RAGFlow's kb_prompt layout),
// and the answer is made of the sentences of those blocks that best match
// the question, each followed by the [ID:n] marker of its block.

// maxAnswerSentences bounds an extractive answer.
const maxAnswerSentences = 3

var (
	idLine       = regexp.MustCompile(`^\s*ID:\s*(\d+)\b\s*(.*)$`)
	questionLine = regexp.MustCompile(`^\s*Question:\s*(.*)$`)
	// labelLine matches the "├── Title: …" style field lines of a block.
	labelLine   = regexp.MustCompile(`(?i)^[\s├└│─-]*(title|url|path|source|document|doc|heading|section|dataset|project|version|status|score|similarity|anchor|updated|content)\s*:\s*(.*)$`)
	bulletMark  = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
	blockSplitR = regexp.MustCompile(`([.!?。！？])\s+`)
)

// contextBlock is one "ID: n" block of the prompt.
type contextBlock struct {
	id    int
	lines []string
}

// parsePrompt splits a user message into its context blocks and question.
// A line "ID: n" starts block n, which runs to the next ID line or to a line
// starting "Question:"; the question is the text after the last such line,
// or the whole message when there is none.
func parsePrompt(content string) ([]contextBlock, string) {
	var blocks []contextBlock
	var cur *contextBlock
	var question []string
	asked, inQuestion := false, false
	for _, line := range strings.Split(content, "\n") {
		if m := idLine.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			blocks = append(blocks, contextBlock{id: id, lines: []string{m[2]}})
			cur, inQuestion = &blocks[len(blocks)-1], false
			continue
		}
		if m := questionLine.FindStringSubmatch(line); m != nil {
			cur, asked, inQuestion = nil, true, true
			question = []string{m[1]}
			continue
		}
		switch {
		case cur != nil:
			cur.lines = append(cur.lines, line)
		case inQuestion:
			question = append(question, line)
		}
	}
	if !asked {
		return blocks, content
	}
	return blocks, strings.TrimSpace(strings.Join(question, "\n"))
}

// candidate is one sentence of a block.
type candidate struct {
	text  string
	block int
	terms map[string]bool
	score float64
}

// extractiveAnswer returns the answer with [ID:n] markers, or "" when no
// sentence of the blocks shares a term with the question.
func extractiveAnswer(blocks []contextBlock, question string) string {
	terms := queryTerms(question)
	if len(terms) == 0 {
		return ""
	}
	cands := blockSentences(blocks)
	scoreCandidates(cands, terms)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var parts []string
	seen := map[string]bool{}
	for _, c := range cands {
		if c.score <= 0 || len(parts) == maxAnswerSentences {
			break
		}
		if seen[c.text] {
			continue
		}
		seen[c.text] = true
		parts = append(parts, c.text+" [ID:"+strconv.Itoa(c.block)+"]")
	}
	return strings.Join(parts, " ")
}

// blockSentences lists the prose sentences of every block, skipping field
// labels other than Content, headings, tables and code. Wrapped lines of a
// paragraph are joined first, so a sentence is never cut at a line break.
func blockSentences(blocks []contextBlock) []*candidate {
	var out []*candidate
	for _, b := range blocks {
		for _, para := range paragraphs(b.lines) {
			text := mdLink.ReplaceAllString(para, "$1")
			text = strings.ReplaceAll(text, "**", "")
			for _, s := range strings.Split(blockSplitR.ReplaceAllString(text, "$1\x00"), "\x00") {
				if s = strings.TrimSpace(s); len(s) >= 3 {
					out = append(out, &candidate{text: s, block: b.id, terms: termSet(s)})
				}
			}
		}
	}
	return out
}

// mdLink matches a markdown link; the answer keeps its text only.
var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// paragraphs joins consecutive prose lines; a non-prose line, a blank line
// or a list item starts a new paragraph, and code blocks are skipped.
func paragraphs(lines []string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	inFence := false
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(stripLabel(line)), "```") {
			inFence = !inFence
			flush()
			continue
		}
		text, ok := proseOf(line)
		if !ok || inFence {
			flush()
			continue
		}
		if bulletMark.MatchString(strings.TrimSpace(stripLabel(line))) {
			flush()
		}
		cur = append(cur, text)
	}
	flush()
	return out
}

// stripLabel removes a leading "Content: " label.
func stripLabel(line string) string {
	if m := labelLine.FindStringSubmatch(line); m != nil {
		return m[2]
	}
	return line
}

func proseOf(line string) (string, bool) {
	if m := labelLine.FindStringSubmatch(line); m != nil {
		if !strings.EqualFold(m[1], "content") {
			return "", false
		}
		line = m[2]
	}
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "|") {
		return "", false
	}
	return bulletMark.ReplaceAllString(line, ""), true
}

func termSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range tokenize(s) {
		set[t] = true
	}
	return set
}

// scoreCandidates weights each matched question term by its rarity among
// the candidate sentences, so the sentence carrying the distinctive terms
// wins over one repeating a common word.
func scoreCandidates(cands []*candidate, terms []string) {
	freq := map[string]int{}
	for _, c := range cands {
		for _, t := range terms {
			if c.terms[t] {
				freq[t]++
			}
		}
	}
	for _, c := range cands {
		for _, t := range terms {
			if c.terms[t] {
				c.score += 1 + math.Log(float64(len(cands))/float64(freq[t]))
			}
		}
	}
}

// htmlEscape is Python's html.escape(s, quote=True), which G2 applies to
// the empty-response text.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace(s)
}
