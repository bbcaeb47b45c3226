package normalizer

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/wikigate/wikigate/dedupe"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// BenchmarkAskAnswer is Answer on bench run C's ask (issue 13 item 4): the
// development RAGFlow's 8 chunks for "How do I configure agent memory?"
// and its generated answer citing three of them (testdata/devragflow,
// recorded from that backend).
func BenchmarkAskAnswer(b *testing.B) {
	text, chunks := devRAGFlowAsk(b)
	o := AnswerOptions{RequireCitations: true, DedupeKey: "k"}
	if res, stats := Answer(text, chunks, kgentScope, o); stats.Citations != 3 || res.NoAnswerReason != nil {
		b.Fatalf("the recorded answer must be answered with 3 citations: %+v", res)
	}
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		Answer(text, chunks, kgentScope, o)
	}
	if cpu > 0 {
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkAskPath is the normalizer's whole share of bench run C's ask,
// as gateway.answer runs it: Answer with the feedback action's dedupe key
// (dedupe.Key over the cited paths), then CheckCoverage on the question.
func BenchmarkAskPath(b *testing.B) {
	text, chunks := devRAGFlowAsk(b)
	const question = "How do I configure agent memory?"
	o := AnswerOptions{RequireCitations: true,
		NoAnswerKey: func() string { return dedupe.Key(protocol.EventNoAnswer, question, kgentScope, nil) },
		AnswerKey: func(paths []string) string {
			return dedupe.Key(protocol.EventAnswer, question, kgentScope, paths)
		},
		WriteTools: []string{protocol.ActionCreateFeedback}, FeedbackEndpoint: "/answer/feedback"}
	res, stats := Answer(text, chunks, kgentScope, o)
	if res, stats = CheckCoverage(res, stats, question, 0, chunks, kgentScope, o); stats.Citations != 3 || res.NoAnswerReason != nil {
		b.Fatalf("the recorded answer must be answered with 3 citations: %+v", res)
	}
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		res, stats := Answer(text, chunks, kgentScope, o)
		CheckCoverage(res, stats, question, 0, chunks, kgentScope, o)
	}
	if cpu > 0 {
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
}

func devRAGFlowAsk(b testing.TB) (string, []ragflow.Chunk) {
	b.Helper()
	raw, err := os.ReadFile("testdata/devragflow/retrieval.bench.json")
	if err != nil {
		b.Fatal(err)
	}
	text, err := os.ReadFile("testdata/devragflow/answer.bench.txt")
	if err != nil {
		b.Fatal(err)
	}
	var env struct {
		Data struct{ Chunks []ragflow.Chunk } `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || len(env.Data.Chunks) != 8 {
		b.Fatalf("retrieval fixture: %v", err)
	}
	return string(text), env.Data.Chunks
}

// BenchmarkAskAnswerJSON is writing bench run C's answer as the gateway
// does (AnswerResult.AppendJSON) and as encoding/json did.
func BenchmarkAskAnswerJSON(b *testing.B) {
	text, chunks := devRAGFlowAsk(b)
	res, _ := Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true, DedupeKey: "k"})
	res.Audit = protocol.Audit{RequestID: "0123456789abcdef0123456789abcdef", Caller: "kunora-coding-agent", Scope: "kunora-kgent"}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 8<<10)
		for b.Loop() {
			buf, _ = res.AppendJSON(buf[:0], false)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(res)
		}
	})
}
