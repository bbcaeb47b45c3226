package normalizer

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// answerSentences is what the grounding needs to know of an answer: how
// many sentences make a claim, how many of those carry a citation, and the
// first one (for the summary).
type answerSentences struct {
	total, cited int
	first        string
}

// sentence is one sentence being read.
type sentence struct {
	text    []byte // markers left out
	content bool   // has a letter or digit: a claim, not punctuation or markup
	cited   bool
}

// sentenceCounter reads an answer sentence by sentence. A finished
// sentence is held in done until the next one makes a claim, so a marker
// written after its full stop can still be credited to it.
type sentenceCounter struct {
	out  answerSentences
	done *sentence
	cur  *sentence
}

var (
	mdHeadingLine = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)
	mdLeader      = regexp.MustCompile(`^(?:[-*+>]\s+|\d+[.)]\s+|#{1,6}\s+)+`)
)

// countSentences splits an answer into sentences (at . ! ? followed by a
// blank or the end, at 。！？, and at line ends) and counts the cited ones. A
// marker belongs to the sentence it ends; a marker after a sentence's full
// stop ("... engine. [ID:0]") belongs to the sentence before it. Markdown
// headings and code blocks make no claim and are not counted.
func countSentences(text string) answerSentences {
	sc := &sentenceCounter{cur: &sentence{}}
	inFence := false
	for line := range strings.SplitSeq(text, "\n") {
		if codeFence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence || mdHeadingLine.MatchString(line) {
			continue
		}
		sc.readLine(line)
		sc.end()
	}
	sc.flush()
	return sc.out
}

func (sc *sentenceCounter) readLine(line string) {
	markers := ragflow.FindMarkers(line)
	for i := 0; i < len(line); {
		if len(markers) > 0 && markers[0].Start == i {
			sc.marker()
			i = markers[0].End
			markers = markers[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		sc.rune(r)
		if sentenceEnds(r, line[i:]) {
			sc.end()
		}
	}
}

func (sc *sentenceCounter) marker() {
	// "store [ID:0]." reads "store." without its marker.
	sc.cur.text = bytes.TrimRight(sc.cur.text, " \t")
	switch {
	case sc.cur.content:
		sc.cur.cited = true
	case sc.done != nil:
		sc.done.cited = true
	default:
		sc.cur.cited = true // a marker before its sentence's words
	}
}

func (sc *sentenceCounter) rune(r rune) {
	if !sc.cur.content && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		sc.cur.content = true
		sc.flush()
	}
	sc.cur.text = utf8.AppendRune(sc.cur.text, r)
}

func (sc *sentenceCounter) end() {
	if sc.cur.content {
		sc.flush()
		sc.done = sc.cur
		sc.cur = &sentence{}
		return
	}
	sc.cur.text = sc.cur.text[:0] // punctuation or blanks between sentences
}

// flush counts the held sentence.
func (sc *sentenceCounter) flush() {
	if sc.done == nil {
		return
	}
	sc.out.total++
	if sc.done.cited {
		sc.out.cited++
	}
	if sc.out.first == "" {
		sc.out.first = strings.TrimSpace(string(sc.done.text))
	}
	sc.done = nil
}

// sentenceEnds: CJK full stops always end a sentence; . ! ? only before a
// blank, the end of the line or a marker (so "3.5" and "v1.0" stay whole).
func sentenceEnds(r rune, rest string) bool {
	switch r {
	case '。', '！', '？':
		return true
	case '.', '!', '?':
		if rest == "" {
			return true
		}
		next, _ := utf8.DecodeRuneInString(rest)
		return unicode.IsSpace(next)
	}
	return false
}

// summaryRunes bounds AnswerResult.summary.
const summaryRunes = 200

// answerSummary is the first sentence without markers or list and heading
// leaders, whitespace collapsed, at most summaryRunes runes.
func answerSummary(first string) string {
	s := strings.Join(strings.Fields(ragflow.StripMarkers(first)), " ")
	s = mdLeader.ReplaceAllString(s, "")
	if utf8.RuneCountInString(s) <= summaryRunes {
		return s
	}
	r := []rune(s)[:summaryRunes-1]
	return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
}

// answerGrounding says how the answer is supported by its citations.
func answerGrounding(s answerSentences, ca citedAnswer) protocol.Grounding {
	g := protocol.Grounding{
		Status:         protocol.GroundingUngrounded,
		CitedSentences: s.cited,
		Sentences:      s.total,
		Sources:        distinctPaths(ca.citations),
		TopScore:       ca.topScore,
	}
	switch {
	case len(ca.citations) == 0:
	case s.total > 0 && s.cited == s.total:
		g.Status = protocol.GroundingGrounded
	default:
		g.Status = protocol.GroundingPartial
	}
	return g
}

func distinctPaths(cs []protocol.Citation) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.Path] = true
	}
	return len(seen)
}

// answerConfidence grades the evidence: high when the best cited chunk
// scores at least HighScore and every sentence is cited, medium when it
// scores at least MediumScore, low otherwise (and always without a
// citation).
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
