package normalizer

import (
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// coverageChunk is an in-scope chunk of kgentScope holding content.
func coverageChunk(id, content string, score float64) ragflow.Chunk {
	c := inChunk(id, score)
	c.Content = content
	return c
}

// answerAndCheck is what the gate does with a generated text: Answer, then
// CheckCoverage against the question.
func answerAndCheck(question, text string, chunks []ragflow.Chunk) (protocol.AnswerResult, AnswerStats) {
	o := AnswerOptions{RequireCitations: true}
	res, stats := Answer(text, chunks, kgentScope, o)
	return CheckCoverage(res, stats, question, 0, chunks, kgentScope, o)
}

// TestCheckCoverageWithholdsAnAnswerThatMissesTheQuestion: asked about
// HTTP/3 over QUIC, a model that faithfully quotes the HTTP/2 page gives
// a supported answer that does not address the question: a no-answer
// (no_evidence), no citation, the related pages kept. The same text
// answers a question about HTTP/2.
func TestCheckCoverageWithholdsAnAnswerThatMissesTheQuestion(t *testing.T) {
	chunks := []ragflow.Chunk{coverageChunk("http2", "HTTP/2 support is not enabled by default. Install the http2 extra and pass http2=True to the client.", 0.45)}
	text := "HTTP/2 support is not enabled by default [ID:0]. Install the http2 extra and pass http2=True to the client [ID:0]."

	res, stats := answerAndCheck("How do I enable HTTP/3 over QUIC?", text, chunks)
	if res.NoAnswerReason == nil || res.NoAnswerReason.Reason != protocol.NoAnswerNoEvidence || !stats.NoAnswer {
		t.Fatalf("HTTP/3 question: reason %+v, want no_evidence", res.NoAnswerReason)
	}
	if len(res.Citations) != 0 || stats.Citations != 0 || res.Answer != "" || len(res.RelatedPages) != 1 {
		t.Errorf("HTTP/3 no-answer = %+v, want no answer, no citation, the page as related", res)
	}

	res, _ = answerAndCheck("How do I enable HTTP/2 support?", text, chunks)
	if res.NoAnswerReason != nil || len(res.Citations) != 1 {
		t.Errorf("HTTP/2 question: %+v, want the answer with its citation", res)
	}
}

// TestCheckCoverageWeakEvidence: under MediumScore, a chunk that holds only
// part of the question does not answer it; one that holds all of it does.
func TestCheckCoverageWeakEvidence(t *testing.T) {
	chunks := []ragflow.Chunk{coverageChunk("logs", "Set the log level to debug to see each request the client sends.", 0.25)}
	text := "Set the log level to debug to see each request the client sends [ID:0]."
	if res, _ := answerAndCheck("How do I save the client's cookies to disk between runs?", text, chunks); res.NoAnswerReason == nil {
		t.Errorf("weak, partial evidence answered: %q", res.Answer)
	}
	if res, _ := answerAndCheck("Which log level shows each request the client sends?", text, chunks); res.NoAnswerReason != nil {
		t.Errorf("weak but full evidence withheld: %+v", res.NoAnswerReason)
	}
}

// TestCheckCoverageCapsConfidence: a strong, grounded answer is high
// confidence only when its chunks cover most of the question.
func TestCheckCoverageCapsConfidence(t *testing.T) {
	chunks := []ragflow.Chunk{coverageChunk("ttl", "The default memory.ttl is 24h, after which an idle conversation's memory expires.", 0.8)}
	text := "The default memory.ttl is 24h [ID:0]."
	if res, _ := answerAndCheck("What is the default memory.ttl?", text, chunks); res.Confidence != protocol.ConfidenceHigh {
		t.Errorf("covered: confidence %s, want high", res.Confidence)
	}
	res, _ := answerAndCheck("What is the default memory.ttl of the Postgres store on Windows?", text, chunks)
	if res.NoAnswerReason != nil || res.Confidence != protocol.ConfidenceMedium {
		t.Errorf("partly covered: %+v confidence %s, want an answer at medium", res.NoAnswerReason, res.Confidence)
	}
}

// TestCoverage weighs a question's words as support scoring does, leaving
// out its framing words, one-letter words and (over pages without CJK)
// its CJK text; a dotted key is found as nested keys.
func TestCoverage(t *testing.T) {
	page := []ragflow.Chunk{{Content: "server:\n  max_concurrent_turns: 24 # turns processed at once\nRedis keeps agent memory."}}
	cases := []struct {
		question string
		want     float64
	}{
		{"How many turns are processed at once?", 1},                  // "how many" frames the question
		{"What is the default of server.max_concurrent_turns?", 0.75}, // found as nested keys; "default" is not
		{"如何配置 agent memory 使用 Redis？", 1},                            // judged on its Latin words
		{"公司的年假政策是什么？", 1},                                            // nothing left to weigh
		{"Does Kafka keep agent memory?", 0.6},                        // Kafka, a name, weighs 2 of 5
	}
	for _, c := range cases {
		if got := Coverage(c.question, page); got != c.want {
			t.Errorf("Coverage(%q) = %v, want %v", c.question, got, c.want)
		}
	}
}
