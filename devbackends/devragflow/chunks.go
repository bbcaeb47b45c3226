package devragflow

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxChunkChars bounds a chunk, roughly what RAGFlow's naive chunker makes of
// a 128–256 token budget.
const maxChunkChars = 900

// sentenceEnd matches the gap after a sentence terminator.
var sentenceEnd = regexp.MustCompile(`([.!?。！？])\s+`)

// splitPage cuts markdown into chunks: one per "## " section (the text before
// the first one, usually the title and intro, is a section too), and a
// section longer than maxChunkChars is packed paragraph by paragraph.
func splitPage(content string) []string {
	var chunks []string
	for _, section := range splitSections(content) {
		chunks = append(chunks, packParagraphs(section)...)
	}
	return chunks
}

func splitSections(content string) []string {
	var sections []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			sections = append(sections, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(line, "## ") || line == "##" {
			flush()
		}
		cur.WriteString(line)
		cur.WriteString("\n")
	}
	flush()
	return sections
}

// packParagraphs joins paragraphs greedily up to maxChunkChars; a paragraph
// that alone is too long is split by sentences, then by characters.
func packParagraphs(section string) []string {
	if utf8.RuneCountInString(section) <= maxChunkChars {
		return []string{section}
	}
	var pieces []string
	for _, para := range strings.Split(section, "\n\n") {
		if para = strings.TrimSpace(para); para != "" {
			pieces = append(pieces, splitLong(para)...)
		}
	}
	return pack(pieces, "\n\n")
}

func splitLong(para string) []string {
	if utf8.RuneCountInString(para) <= maxChunkChars {
		return []string{para}
	}
	sentences := strings.Split(sentenceEnd.ReplaceAllString(para, "$1\x00"), "\x00")
	var out []string
	for _, s := range sentences {
		out = append(out, hardSplit(s)...)
	}
	return pack(out, " ")
}

func hardSplit(s string) []string {
	runes := []rune(s)
	var out []string
	for len(runes) > maxChunkChars {
		out = append(out, string(runes[:maxChunkChars]))
		runes = runes[maxChunkChars:]
	}
	return append(out, string(runes))
}

// pack concatenates consecutive pieces with sep while they fit.
func pack(pieces []string, sep string) []string {
	var out []string
	cur := ""
	for _, p := range pieces {
		switch {
		case cur == "":
			cur = p
		case utf8.RuneCountInString(cur)+len(sep)+utf8.RuneCountInString(p) <= maxChunkChars:
			cur += sep + p
		default:
			out = append(out, cur)
			cur = p
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
