package normalizer

import (
	"reflect"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// TestAnsweredResultOffersFeedback: an answer offers create_feedback
// (only), keyed by AnswerKey over the paths it cites, enabled by the
// granted tools and naming the feedback route; without AnswerKey it
// offers none.
func TestAnsweredResultOffersFeedback(t *testing.T) {
	supporting := inChunk("a", 0.9)
	supporting.Content = "Redis is the default memory store."
	var gotPaths []string
	o := AnswerOptions{
		AnswerKey:        func(paths []string) string { gotPaths = paths; return "answer-key" },
		NoAnswerKey:      func() string { return "gap-key" },
		WriteTools:       []string{protocol.ActionCreateFeedback},
		FeedbackEndpoint: "/answer/feedback",
	}
	a, st := Answer("Redis is the default memory store [ID:0].", []ragflow.Chunk{supporting}, kgentScope, o)
	want := []protocol.Action{{Type: protocol.ActionCreateFeedback, Enabled: true, DedupeKey: "answer-key", Endpoint: "/answer/feedback"}}
	if st.NoAnswer || !reflect.DeepEqual(a.Actions, want) {
		t.Fatalf("answer actions %+v, want %+v", a.Actions, want)
	}
	if !reflect.DeepEqual(gotPaths, CitationPaths(a.Citations)) || len(gotPaths) != 1 || gotPaths[0] != kgentPath+"/a.md" {
		t.Errorf("the key covered %v, the answer cites %+v", gotPaths, a.Citations)
	}
	o.WriteTools = nil
	if a, _ = Answer("Redis is the default memory store [ID:0].", []ragflow.Chunk{supporting}, kgentScope, o); a.Actions[0].Enabled {
		t.Errorf("enabled without the grant: %+v", a.Actions)
	}
	o.AnswerKey = nil
	if a, _ = Answer("Redis is the default memory store [ID:0].", []ragflow.Chunk{supporting}, kgentScope, o); len(a.Actions) != 0 || a.Actions == nil {
		t.Errorf("without AnswerKey: %#v", a.Actions)
	}
}
