package normalizer

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// summaryRunes bounds AnswerResult.summary.
const summaryRunes = 200

// answerSummary is the first sentence without markers or list and heading
// leaders, whitespace collapsed, at most summaryRunes runes.
func answerSummary(first string) string {
	s := joinFields(ragflow.StripMarkers(first))
	if s != "" && strings.IndexByte(leaderStarts, s[0]) >= 0 { // s starts with no blank: mdLeader needs one of these
		s = mdLeader.ReplaceAllString(s, "")
	}
	if utf8.RuneCountInString(s) <= summaryRunes {
		return s
	}
	r := []rune(s)[:summaryRunes-1]
	return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
}

// joinFields is strings.Join(strings.Fields(s), " "): s itself, without
// a copy, when it has no blank at either end and only single spaces
// between its words (a summary usually).
func joinFields(s string) string {
	if isJoinedFields(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func isJoinedFields(s string) bool {
	blank := true // so a blank at the start is refused
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			isBlank := c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			if isBlank && (c != ' ' || blank) {
				return false
			}
			blank = isBlank
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		blank = false
		i += n
	}
	return s == "" || !blank
}

// firstKept is the first shown sentence, markers left out.
func firstKept(text string, pieces []piece, verdicts []verdict) string {
	for i, p := range pieces {
		if p.kind == claimPiece && verdicts[i].keep {
			return strings.TrimSpace(plainText(text, p))
		}
	}
	return ""
}

// measureGrounding counts the claims (sentences and code blocks) the model
// generated and those kept, and the kept share by characters. Citations
// are filled in once numbered.
func measureGrounding(pieces []piece, verdicts []verdict) protocol.Grounding {
	g := protocol.Grounding{Status: protocol.GroundingUngrounded, Citations: []protocol.CitationGrounding{}}
	total, kept := 0, 0
	for i, p := range pieces {
		if p.kind != claimPiece && p.kind != codePiece {
			continue
		}
		g.Sentences++
		total += verdicts[i].runes
		if verdicts[i].keep {
			g.CitedSentences++
			kept += verdicts[i].runes
		}
	}
	g.DroppedSentences = g.Sentences - g.CitedSentences
	if total > 0 {
		g.Supported = roundScore(float64(kept) / float64(total))
	}
	switch {
	case g.CitedSentences == 0:
	case g.DroppedSentences == 0:
		g.Status = protocol.GroundingGrounded
	default:
		g.Status = protocol.GroundingPartial
	}
	return g
}

func distinctPaths(cs []protocol.Citation) int {
	n := 0
	for i, c := range cs {
		if !slices.ContainsFunc(cs[:i], func(d protocol.Citation) bool { return d.Path == c.Path }) {
			n++
		}
	}
	return n
}

// answerConfidence grades the evidence: high when the best cited chunk
// scores at least HighScore and every generated sentence was supported,
// medium when it scores at least MediumScore, low otherwise (and always
// without support).
func answerConfidence(g protocol.Grounding, o AnswerOptions) string {
	switch {
	case g.Status == protocol.GroundingUngrounded:
		return protocol.ConfidenceLow
	case g.TopScore >= o.HighScore && g.Status == protocol.GroundingGrounded:
		return protocol.ConfidenceHigh
	case g.TopScore >= o.MediumScore:
		return protocol.ConfidenceMedium
	default:
		return protocol.ConfidenceLow
	}
}
