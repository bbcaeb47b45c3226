package normalizer

import (
	"testing"

	"github.com/wikigate/wikigate/ragflow"
)

// TestNoAnswerKeyOnlyForNoAnswers: the key a no-answer's actions carry is
// computed by NoAnswerKey, and an answered call never computes it.
func TestNoAnswerKeyOnlyForNoAnswers(t *testing.T) {
	calls := 0
	key := func() string { calls++; return "computed" }
	a, st := Answer("Redis is the default [ID:0].", []ragflow.Chunk{outChunk("z", 0.9)}, kgentScope, AnswerOptions{NoAnswerKey: key})
	if !st.NoAnswer || len(a.Actions) != 2 || calls != 1 {
		t.Fatalf("no-answer: %+v %+v, key computed %d times", a, st, calls)
	}
	for _, act := range a.Actions {
		if act.DedupeKey != "computed" {
			t.Errorf("action %+v lacks the computed key", act)
		}
	}
	calls = 0
	supporting := inChunk("a", 0.9)
	supporting.Content = "Redis is the default memory store."
	a, st = Answer("Redis is the default memory store [ID:0].", []ragflow.Chunk{supporting}, kgentScope, AnswerOptions{NoAnswerKey: key})
	if st.NoAnswer || calls != 0 {
		t.Errorf("answer: %+v %+v, key computed %d times", a, st, calls)
	}
	calls = 0
	a, _ = Answer("", nil, kgentScope, AnswerOptions{DedupeKey: "given", NoAnswerKey: key})
	if calls != 0 || a.Actions[0].DedupeKey != "given" {
		t.Errorf("a precomputed key: %+v, computed %d times", a.Actions, calls)
	}
}
