package sessions

import (
	"strings"

	"github.com/wikigate/wikigate/ragflow"
)

// Bounds of CondensedQuery.
const (
	condensedPriorQuestions = 2
	condensedMaxRunes       = 500
)

// noAnswerReply stands in for the empty answer of a no-answer turn, so the
// history keeps alternating and the model knows the question went
// unanswered rather than seeing it silently dropped.
const noAnswerReply = "The documentation does not answer this question."

// History returns the kept turns as alternating user/assistant messages,
// oldest first, for ragflow.BuildPrompt (which strips citation markers).
// When turns were trimmed it starts with the pages they cited (the
// citation summary, as ragflow.CitedEarlier), so a follow-up is still read
// against what the whole conversation was about.
func (s *Session) History() []ragflow.Message {
	msgs := make([]ragflow.Message, 0, 2*len(s.Turns)+1)
	if len(s.CitationSummary) > 0 {
		msgs = append(msgs, ragflow.CitedEarlier(s.CitationSummary))
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		answer := strings.TrimSpace(t.Answer)
		if answer == "" && t.NoAnswer {
			answer = noAnswerReply
		}
		msgs = append(msgs,
			ragflow.Message{Role: ragflow.RoleUser, Content: t.Question},
			ragflow.Message{Role: ragflow.RoleAssistant, Content: answer},
		)
	}
	return msgs
}

// CondensedQuery is the retrieval query for a follow-up. A follow-up such
// as "and in v1.0?" retrieves nothing on its own, so the previous questions
// (newest first, at most two) are appended, one per line. The new question
// is kept whole; the earlier ones only fill what is left of 500 runes.
func (s *Session) CondensedQuery(question string) string {
	question = strings.TrimSpace(question)
	parts := []string{question}
	budget := condensedMaxRunes - len([]rune(question))
	for i := len(s.Turns) - 1; i >= 0 && len(parts) <= condensedPriorQuestions; i-- {
		prior := strings.TrimSpace(s.Turns[i].Question)
		if prior == "" || prior == question {
			continue
		}
		budget-- // the newline joining it
		if budget <= 0 {
			break
		}
		prior = truncateRunes(prior, budget)
		budget -= len([]rune(prior))
		parts = append(parts, prior)
	}
	return strings.Join(parts, "\n")
}

// truncateRunes cuts s to at most n runes, at a space when one is near the
// end so no half word is sent to retrieval.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut)
}
