package normalizer

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// Two chunks of the sample wiki's agent memory page.
const (
	memBackends = "## Memory backends\n\n- `redis` — the default for production. Every replica reads and writes the same memory, keys expire by TTL, and a restart loses nothing.\n- `in-memory` — for tests only."
	memWindow   = "## memory.window\n\nThe number of turns kept verbatim in the prompt. The default is 20; older turns are summarized into `memory.summary`."
)

func memChunks() []ragflow.Chunk {
	a, b := inChunk("mem", 0.8), inChunk("win", 0.6)
	a.Content, b.Content = memBackends, memWindow
	return []ragflow.Chunk{a, b}
}

func TestSupportScore(t *testing.T) {
	backends, window := newChunkText(memBackends), newChunkText(memWindow)
	cases := []struct {
		sentence string
		chunk    chunkText
		min, max float64
	}{
		{"Redis is the default for production.", backends, 1, 1},
		{"Every replica reads the same memory.", backends, 1, 1},
		{"Redis is the default for production.", window, 0, 0.4},                  // the wrong chunk
		{"The window keeps 20 turns verbatim.", window, 0.8, 1},                   // "keeps" is not "kept"; the rest is found
		{"The window keeps 30 turns verbatim.", window, 0, 0.6},                   // a wrong number weighs 3
		{"Older turns are summarized into `memory.summary`.", window, 1, 1},       // quoted span found verbatim
		{"Older turns are summarized into `memory.summaries`.", window, 0.3, 0.6}, // quoted span not found
		{"Set `memory.backend` to Postgres.", backends, 0, 0},
		{"kunora-kgent 默认使用 Redis。", backends, 0.5, 0.5}, // CJK left out against an English chunk: kunora-kgent missing, Redis found
		{"默认使用。", backends, 0, 0},                        // nothing left to judge
		{"Ok!", backends, 1, 1},                          // nothing to weigh
	}
	for _, tc := range cases {
		got := tokenizeClaim(tc.sentence).score(tc.chunk)
		if got < tc.min || got > tc.max {
			t.Errorf("score(%q) = %.3f, want in [%.2f, %.2f]", tc.sentence, got, tc.min, tc.max)
		}
	}
}

// TestAnswerWithoutRequireCitationsIsNeverUncited (issue 8 item 1): with
// requireCitations false the model need not write markers, but every shown
// sentence is cited (by the gate, with the chunk that supports it) and a
// text no chunk supports is a no-answer, never an uncited answer.
func TestAnswerWithoutRequireCitationsIsNeverUncited(t *testing.T) {
	o := AnswerOptions{RequireCitations: false, DedupeKey: "k", WriteTools: []string{protocol.ActionCreateFeedback}}
	a, st := Answer("Redis is the default for production. The default window is 20 turns.", memChunks(), kgentScope, o)
	if a.NoAnswerReason != nil || a.Answer != "Redis is the default for production [1]. The default window is 20 turns [2]." || st.Citations != 2 {
		t.Fatalf("want a gate-cited answer: %q %+v", a.Answer, a)
	}
	if g := a.Grounding.Citations; g[0].GateCited != 1 || g[1].GateCited != 1 || a.Citations[0].ChunkID != "mem" {
		t.Errorf("grounding citations %+v, citations %+v", g, a.Citations)
	}
	for _, text := range []string{
		"Postgres stores memory in a vector index.",
		"Postgres stores memory in a vector index [ID:0].",
	} {
		a, st = Answer(text, memChunks(), kgentScope, o)
		if a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerUncited || a.Answer != "" || len(a.Citations) != 0 || !st.NoAnswer {
			t.Errorf("%q: an unsupported text must be a no-answer: %+v", text, a)
		}
		if !a.Actions[0].Enabled || a.Actions[0].DedupeKey != "k" {
			t.Errorf("no-answer actions %+v", a.Actions)
		}
	}
}

// TestAnswerDropsUnsupportedSentences (issue 8 item 13): a partly cited
// answer shows only its supported sentences, and grounding says how much
// was dropped.
func TestAnswerDropsUnsupportedSentences(t *testing.T) {
	text := "Redis is the default for production [ID:0]. Every replica reads the same memory [ID:0]. It was added in 2019. The window keeps 20 turns [ID:1]."
	a, _ := Answer(text, memChunks(), kgentScope, AnswerOptions{RequireCitations: true})
	want := "Redis is the default for production [1]. Every replica reads the same memory [1]. The window keeps 20 turns [2]."
	if a.Answer != want {
		t.Fatalf("answer %q, want %q", a.Answer, want)
	}
	g := a.Grounding
	if g.Status != protocol.GroundingPartial || g.Sentences != 4 || g.CitedSentences != 3 || g.DroppedSentences != 1 || g.Supported <= 0.5 || g.Supported >= 1 {
		t.Errorf("grounding %+v", g)
	}
	if a.Confidence == protocol.ConfidenceHigh {
		t.Error("a trimmed answer is never high confidence")
	}
	if g.Citations[0].Sentences != 2 || g.Citations[1].Sentences != 1 {
		t.Errorf("per-citation sentences %+v", g.Citations)
	}
}

// TestAnswerCitingTheWrongChunk (issue 8 item 14): a sentence whose marker
// points at a chunk that does not support it is treated as uncited; when
// too little of the answer is left, there is no answer.
func TestAnswerCitingTheWrongChunk(t *testing.T) {
	chunks := memChunks()
	a, _ := Answer("Redis is the default for production [ID:1].", chunks, kgentScope, AnswerOptions{RequireCitations: true})
	if a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerUncited {
		t.Errorf("a sentence citing the wrong chunk must not be shown: %+v", a)
	}
	text := "Redis is the default for production, with every replica reading the same memory [ID:1]. The window keeps 20 turns [ID:1]."
	a, _ = Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true})
	if a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerUnsupported || a.Grounding.Supported >= 0.5 || a.Grounding.CitedSentences != 1 {
		t.Errorf("most of the answer is unsupported: want unsupported_answer, got %+v", a)
	}
	a, _ = Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true, MinSupported: 0.2})
	if a.NoAnswerReason != nil || a.Answer != "The window keeps 20 turns [1]." {
		t.Errorf("with min supported 0.2 the supported sentence is shown: %+v", a)
	}
	a, _ = Answer("Redis is the default for production [ID:0].", chunks, kgentScope, AnswerOptions{RequireCitations: true, SupportThreshold: 1.01})
	if a.NoAnswerReason == nil {
		t.Errorf("a support threshold above 1 supports nothing: %+v", a)
	}
}

// benchmarkAnswer is a typical answer: four sentences citing three chunks
// of eight retrieved, one of them the wrong one.
func benchmarkAnswer() (string, []ragflow.Chunk) {
	chunks := memChunks()
	for i := range 6 {
		c := inChunk(strings.Repeat("x", i+1), 0.3)
		c.Content = strings.Repeat("Agents call tools through the gateway; each call is audited and scoped. ", 12)
		chunks = append(chunks, c)
	}
	text := "Redis is the default for production [ID:0]. Every replica reads and writes the same memory, and keys expire by TTL [ID:0]. " +
		"The window keeps 20 turns verbatim, older turns are summarized into `memory.summary` [ID:1]. Agents call tools through the gateway [ID:2][ID:0]."
	return text, chunks
}

// BenchmarkGrounding measures the grounding of one typical cited answer:
// splitting, support scores, numbering and rendering (docs/protocol.md,
// "Citations and grounding", reports the figure; the budget is 50 µs per
// answer).
func BenchmarkGrounding(b *testing.B) {
	benchmarkGround(b, true)
}

// BenchmarkGroundingGateCited is the costlier case: no markers, so every
// sentence is scored against all eight chunks (requireCitations false).
func BenchmarkGroundingGateCited(b *testing.B) {
	benchmarkGround(b, false)
}

func benchmarkGround(b *testing.B, requireCitations bool) {
	text, chunks := benchmarkAnswer()
	if !requireCitations {
		text = ragflow.StripMarkers(text)
	}
	inScope := make([]bool, len(chunks))
	for i := range inScope {
		inScope[i] = true
	}
	o := AnswerOptions{RequireCitations: requireCitations}.withDefaults()
	if gr := ground(text, chunks, inScope, o); len(gr.nb.citations) < 2 || gr.g.DroppedSentences != 0 {
		b.Fatalf("the benchmark answer must be answered: %+v", gr)
	}
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		ground(text, chunks, inScope, o)
	}
	if cpu > 0 {
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkAnswer is the whole of Answer (scope checks and citation
// anchors included) on the same answer.
func BenchmarkAnswer(b *testing.B) {
	text, chunks := benchmarkAnswer()
	o := AnswerOptions{RequireCitations: true, DedupeKey: "k"}
	b.ReportAllocs()
	for b.Loop() {
		Answer(text, chunks, kgentScope, o)
	}
}
