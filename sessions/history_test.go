package sessions

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wikigate/wikigate/ragflow"
)

func TestHistoryAlternatesUserAndAssistant(t *testing.T) {
	s, _ := newSession(t, alice, Limits{})
	if got := s.History(); len(got) != 0 {
		t.Errorf("History of a new session = %v, want none", got)
	}
	s.AddTurn(turn("How does kgent store memory?", 10, citation(1)))
	s.AddTurn(Turn{Question: "Who approved it?", NoAnswer: true})

	want := []ragflow.Message{
		{Role: ragflow.RoleUser, Content: "How does kgent store memory?"},
		{Role: ragflow.RoleAssistant, Content: "The answer to How does kgent store memory? [ID:0]."},
		{Role: ragflow.RoleUser, Content: "Who approved it?"},
		{Role: ragflow.RoleAssistant, Content: noAnswerReply},
	}
	if got := s.History(); !slices.Equal(got, want) {
		t.Errorf("History = %+v\nwant %+v", got, want)
	}
}

// The history must survive BuildPrompt whole: every turn before the new
// question, roles alternating, markers of earlier prompts stripped.
func TestHistoryFeedsBuildPrompt(t *testing.T) {
	s, _ := newSession(t, alice, Limits{})
	s.AddTurn(turn("q1", 10))
	s.AddTurn(Turn{Question: "q2", NoAnswer: true})
	msgs := ragflow.BuildPrompt("q3", nil, s.History())
	if len(msgs) != 5 {
		t.Fatalf("BuildPrompt gave %d messages, want 5: %+v", len(msgs), msgs)
	}
	for i, m := range msgs {
		want := ragflow.RoleUser
		if i%2 == 1 {
			want = ragflow.RoleAssistant
		}
		if m.Role != want {
			t.Errorf("message %d role = %s, want %s", i, m.Role, want)
		}
	}
	if strings.Contains(msgs[1].Content, "[ID:0]") {
		t.Errorf("history answer kept its marker: %q", msgs[1].Content)
	}
}

func TestCondensedQuery(t *testing.T) {
	s, _ := newSession(t, alice, Limits{})
	if got := s.CondensedQuery("  How does kgent store memory? "); got != "How does kgent store memory?" {
		t.Errorf("first question = %q, want it alone", got)
	}
	s.AddTurn(turn("How does kgent store memory?", 10))
	s.AddTurn(turn("Which backends are supported?", 10))
	s.AddTurn(turn("Is Redis one of them?", 10))

	want := "And in v1.0?\nIs Redis one of them?\nWhich backends are supported?"
	if got := s.CondensedQuery("And in v1.0?"); got != want {
		t.Errorf("CondensedQuery = %q, want %q", got, want)
	}
	if got := s.CondensedQuery("Is Redis one of them?"); got != "Is Redis one of them?\nWhich backends are supported?\nHow does kgent store memory?" {
		t.Errorf("repeated question is not skipped: %q", got)
	}
}

func TestCondensedQueryIsBounded(t *testing.T) {
	s, _ := newSession(t, alice, Limits{})
	s.AddTurn(turn(strings.Repeat("memory backend ", 30), 10)) // 450 runes
	s.AddTurn(turn(strings.Repeat("redis cluster ", 30), 10))  // 420 runes

	got := s.CondensedQuery("And in v1.0?")
	if n := utf8.RuneCountInString(got); n > 500 {
		t.Errorf("CondensedQuery has %d runes, want at most 500", n)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || lines[0] != "And in v1.0?" || !strings.HasPrefix(lines[1], "redis cluster") {
		t.Errorf("CondensedQuery = %q, want the question, then the newest prior ones", got)
	}
	if strings.HasSuffix(lines[2], "memo") || strings.HasSuffix(lines[2], " ") {
		t.Errorf("truncated prior question ends mid-word: %q", lines[2])
	}

	long := strings.Repeat("长", 600)
	if got := s.CondensedQuery(long); got != long {
		t.Errorf("a long question alone must be kept whole, got %d runes", utf8.RuneCountInString(got))
	}
}

// Trimmed turns leave their citations in the summary; History hands them
// to generation, so a follow-up after trimming still knows the pages the
// conversation relied on.
func TestHistoryCarriesTheCitationSummary(t *testing.T) {
	s, _ := newSession(t, alice, Limits{MaxTurns: 1})
	s.AddTurn(turn("How does kgent store memory?", 10, citation(1)))
	s.AddTurn(turn("And in v1.0?", 10, citation(2)))
	if len(s.CitationSummary) != 1 {
		t.Fatalf("summary = %+v, want the first turn's citation", s.CitationSummary)
	}
	got := s.History()
	if len(got) != 3 || got[0].Role != ragflow.RoleCitedEarlier || got[1].Content != "And in v1.0?" {
		t.Fatalf("History = %+v, want the cited-earlier message, then the kept turn", got)
	}
	prompt := ragflow.BuildPrompt("and in v2?", nil, got)
	last := prompt[len(prompt)-1].Content
	if !strings.Contains(last, "- Kgent page 1 (publish/system/components/kunora-kgent/page-1.md#memory-backends)") {
		t.Errorf("generation does not see the trimmed turn's page:\n%s", last)
	}
}
