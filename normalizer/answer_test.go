package normalizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// ragInput is one testdata/ragflow/<case>.json: a generated text, the
// chunks numbered in its prompt, the effective scope and the options.
type ragInput struct {
	Source    string          `json:"source"`
	Text      string          `json:"text"`
	Chunks    []ragflow.Chunk `json:"chunks"`
	Scope     protocol.Scope  `json:"scope"`
	Options   AnswerOptions   `json:"options"`
	MaxTokens int             `json:"maxTokens"`
}

// ragGolden is what <case>.golden.json holds.
type ragGolden struct {
	Answer         protocol.AnswerResult `json:"answer"`
	Stats          AnswerStats           `json:"stats"`
	Context        protocol.ContextPack  `json:"context"`
	ContextDropped int                   `json:"contextDropped"`
}

// ragExpect is asserted besides the golden, so a wrong golden cannot be
// blessed by -update: the no-answer reason ("" when answered), the cited
// chunk ids in order, the confidence, the dropped count, the context items.
type ragExpect struct {
	reason     string
	citations  []string
	confidence string
	dropped    int
	items      []string
}

var fixtureChunkIDs = []string{"d78435d142bd5cf6704da62c778795c5", "e89546e253ce6d07815eb73d889806d6"}

var ragCases = map[string]ragExpect{
	"completion_response":          {reason: protocol.NoAnswerNoEvidence, dropped: 2},
	"completion_response_in_scope": {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceMedium, items: fixtureChunkIDs}, // "It cites its sources" is not in "answers questions with grounded citations"
	"completion_response_empty":    {reason: protocol.NoAnswerNoEvidence},
	"openai_with_reference":        {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceHigh, items: fixtureChunkIDs},
	"stream_reference_extras":      {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceMedium, dropped: 1, items: fixtureChunkIDs[:1]},
	"stream_think_markers":         {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceHigh, items: fixtureChunkIDs},
	"stream_empty_response":        {reason: protocol.NoAnswerEmptyResponse, items: fixtureChunkIDs},
	"retrieval_response":           {reason: protocol.NoAnswerNoEvidence, dropped: 1},
	"retrieval_response_in_scope":  {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceHigh, items: fixtureChunkIDs[:1]},
	"retrieval_v024_kb_id":         {citations: fixtureChunkIDs[:1], confidence: protocol.ConfidenceHigh, items: fixtureChunkIDs[:1]},
	"v024_legacy_marker":           {reason: protocol.NoAnswerUncited, items: []string{"faf26c791128f2d5e821f822671063bd"}}, // its chunk is "xxxxxxxx"
	"out_of_scope_chunks":          {citations: []string{"c-mem"}, confidence: protocol.ConfidenceMedium, dropped: 7, items: []string{"c-mem"}},
	"markers_to_missing_chunks":    {citations: []string{"c-mem", "c-win"}, confidence: protocol.ConfidenceMedium, items: []string{"c-mem", "c-win"}},
	"duplicate_chunk_ids":          {citations: []string{"c-mem", "c-sum"}, confidence: protocol.ConfidenceHigh, items: []string{"c-mem", "c-sum"}},
	"uncited_answer_required":      {reason: protocol.NoAnswerUncited, items: []string{"c-mem", "c-win", "c-tools"}},
	"uncited_answer_optional":      {citations: []string{"c-mem"}, confidence: protocol.ConfidenceHigh, items: []string{"c-mem"}},
	"empty_response_escaped":       {reason: protocol.NoAnswerEmptyResponse, items: []string{"c-mem"}},
	"not_in_dataset_text":          {reason: protocol.NoAnswerEmptyResponse, items: []string{"c-mem"}},
	"markdown_answer":              {citations: []string{"c-mem", "c-win", "c-helm", "c-intro"}, confidence: protocol.ConfidenceMedium, items: []string{"c-mem", "c-win", "c-helm", "c-intro"}}, // the yaml block is not in the helm chunk
	"partly_cited_low_score":       {citations: []string{"c-mem"}, confidence: protocol.ConfidenceLow, items: []string{"c-mem"}},
	"chinese_answer":               {citations: []string{"c-mem", "c-win"}, confidence: protocol.ConfidenceMedium, items: []string{"c-mem", "c-win"}},
	"context_budget":               {citations: []string{"c-big"}, confidence: protocol.ConfidenceMedium, items: []string{"c-big", "c-draft"}}, // c-draft never says "Memory v2"
}

func ragInputs(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("testdata", "ragflow", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".golden.json") {
			inputs = append(inputs, f)
		}
	}
	return inputs
}

func readRagInput(t testing.TB, file string) ragInput {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var in ragInput
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return in
}

func TestRAGFlowGolden(t *testing.T) {
	inputs := ragInputs(t)
	if len(inputs) != len(ragCases) {
		t.Errorf("%d inputs in testdata/ragflow, %d cases in ragCases", len(inputs), len(ragCases))
	}
	for _, file := range inputs {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			exp, ok := ragCases[name]
			if !ok {
				t.Fatalf("no expectation for %s in ragCases", name)
			}
			in := readRagInput(t, file)
			var g ragGolden
			g.Answer, g.Stats = Answer(in.Text, in.Chunks, in.Scope, in.Options)
			g.Context, g.ContextDropped = ContextPack("question", in.Chunks, in.Scope, in.MaxTokens)
			assertRagExpect(t, in, exp, g)
			assertAnswerInvariants(t, in.Text, in.Chunks, in.Scope, in.Options, g.Answer, g.Stats)
			ragCompareGolden(t, strings.TrimSuffix(file, ".json")+".golden.json", g)
		})
	}
}

func assertRagExpect(t *testing.T, in ragInput, exp ragExpect, g ragGolden) {
	t.Helper()
	a := g.Answer
	gotReason := ""
	if a.NoAnswerReason != nil {
		gotReason = a.NoAnswerReason.Reason
	}
	if gotReason != exp.reason {
		t.Errorf("no-answer reason = %q, want %q", gotReason, exp.reason)
	}
	if ids := citationIDs(a.Citations); !slices.Equal(ids, exp.citations) {
		t.Errorf("citations = %q, want %q", ids, exp.citations)
	}
	wantConf := exp.confidence
	if exp.reason != "" {
		wantConf = protocol.ConfidenceLow
	}
	if a.Confidence != wantConf {
		t.Errorf("confidence = %q, want %q", a.Confidence, wantConf)
	}
	if g.Stats.Dropped != exp.dropped || g.ContextDropped != exp.dropped {
		t.Errorf("dropped = %d (answer) %d (context), want %d", g.Stats.Dropped, g.ContextDropped, exp.dropped)
	}
	var items []string
	for _, it := range g.Context.Items {
		items = append(items, it.ChunkID)
	}
	if !slices.Equal(items, exp.items) {
		t.Errorf("context items = %q, want %q", items, exp.items)
	}
}

func citationIDs(cs []protocol.Citation) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ChunkID)
	}
	return ids
}

// assertAnswerInvariants holds for every input (the fuzz test uses it too).
func assertAnswerInvariants(t *testing.T, text string, chunks []ragflow.Chunk, eff protocol.Scope, o AnswerOptions, a protocol.AnswerResult, st AnswerStats) {
	t.Helper()
	if a.Citations == nil || a.RelatedPages == nil || a.Actions == nil {
		t.Fatalf("nil slice in result: %+v", a)
	}
	if !slices.Contains([]string{protocol.ConfidenceHigh, protocol.ConfidenceMedium, protocol.ConfidenceLow}, a.Confidence) {
		t.Errorf("confidence %q", a.Confidence)
	}
	kept, _ := InScope(chunks, eff)
	seen := map[string]bool{}
	for _, c := range a.Citations {
		if seen[c.ChunkID] {
			t.Errorf("citation %q repeated", c.ChunkID)
		}
		seen[c.ChunkID] = true
		if !slices.ContainsFunc(kept, func(k ragflow.Chunk) bool { return k.ID == c.ChunkID && k.MetaString("path") == c.Path }) {
			t.Errorf("citation %+v is not an in-scope chunk", c)
		}
	}
	assertAnswerMarkers(t, a)
	noAnswer := a.NoAnswerReason != nil
	if noAnswer != st.NoAnswer || st.Citations != len(a.Citations) {
		t.Errorf("stats %+v disagree with the result", st)
	}
	if noAnswer == (len(a.Citations) > 0) {
		t.Errorf("never an uncited answer: no-answer %v with %d citations", noAnswer, len(a.Citations))
	}
	if noAnswer {
		assertNoAnswerShape(t, a, o)
	}
}

// assertAnswerMarkers: the answer's references are the gate's "[n]", each
// within 1..len(citations); every citation is referenced, and described by
// grounding.citations[n-1]; every shown sentence carries a reference.
func assertAnswerMarkers(t *testing.T, a protocol.AnswerResult) {
	t.Helper()
	referenced := map[int]bool{}
	for _, p := range splitAnswer(a.Answer) {
		for _, m := range p.markers {
			for _, k := range m.Blocks {
				if !m.Bare || k < 1 || k > len(a.Citations) {
					t.Errorf("answer marker %q points at no citation: %q", a.Answer[m.Start:m.End], a.Answer)
				}
				referenced[k] = true
			}
		}
		if p.kind == claimPiece && len(p.markers) == 0 {
			t.Errorf("uncited sentence %q shown: %q", a.Answer[p.start:p.end], a.Answer)
		}
		if p.kind == codePiece { // a code block's references are bare, read as code
			for _, m := range ragflow.FindAllMarkers(a.Answer[p.start:p.end]) {
				for _, k := range m.Blocks {
					referenced[k] = true
				}
			}
		}
	}
	if len(a.Grounding.Citations) != len(a.Citations) {
		t.Fatalf("grounding.citations %+v for %d citations", a.Grounding.Citations, len(a.Citations))
	}
	for i, c := range a.Citations {
		g := a.Grounding.Citations[i]
		if !referenced[i+1] || g.Ref != i+1 || g.ChunkID != c.ChunkID || g.Sentences < 1 || g.Support <= 0 {
			t.Errorf("citation %d (%s) unreferenced or misdescribed %+v in %q", i+1, c.ChunkID, g, a.Answer)
		}
	}
}

func assertNoAnswerShape(t *testing.T, a protocol.AnswerResult, o AnswerOptions) {
	t.Helper()
	if a.Answer != "" || a.Confidence != protocol.ConfidenceLow || len(a.Citations) != 0 || a.NoAnswerReason.Code != protocol.CodeNoAnswer || a.NoAnswerReason.Message == "" {
		t.Errorf("no-answer shape: %+v", a)
	}
	if len(a.Actions) != 2 || a.Actions[0].Type != protocol.ActionCreateFeedback || a.Actions[1].Type != protocol.ActionCreateImprovementTask {
		t.Fatalf("no-answer actions = %+v", a.Actions)
	}
	for _, act := range a.Actions {
		if act.DedupeKey != o.DedupeKey || act.Enabled != slices.Contains(o.WriteTools, act.Type) {
			t.Errorf("action %+v (write tools %v)", act, o.WriteTools)
		}
	}
}

func ragCompareGolden(t *testing.T, golden string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./normalizer -update creates it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test ./normalizer -update rewrites it):\n%s", golden, got)
	}
}

func TestAnswerNoEvidence(t *testing.T) {
	for name, chunks := range map[string][]ragflow.Chunk{
		"nothing retrieved":     nil,
		"nothing in scope":      {outChunk("z", 0.9)},
		"marker to a foreigner": {outChunk("z", 0.9), outChunk("y", 0.8)},
	} {
		a, st := Answer("Redis is the default [ID:0].", chunks, kgentScope, AnswerOptions{RequireCitations: false, DedupeKey: "k"})
		if a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerNoEvidence || !st.NoAnswer || st.Dropped != len(chunks) {
			t.Errorf("%s: %+v %+v", name, a, st)
		}
		for _, act := range a.Actions {
			if act.Enabled || act.DedupeKey != "k" {
				t.Errorf("%s: action %+v enabled without write tools", name, act)
			}
		}
		b, _ := json.Marshal(a)
		for _, want := range []string{`"citations":[]`, `"relatedPages":[]`, `"answer":""`, `"code":"no_answer"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: JSON lacks %s: %s", name, want, b)
			}
		}
	}
}

func TestAnswerEmptyResponses(t *testing.T) {
	chunks := []ragflow.Chunk{inChunk("a", 0.9)}
	for _, text := range []string{
		"Sorry! No relevant content was found in the knowledge base!",
		"  sorry!  no relevant content was found in the knowledge base  ",
		"The answer you are looking for is not found in the dataset! [ID:0]",
		"",
		"  [ID:0] ",
		"Nothing here &amp; there",
	} {
		a, _ := Answer(text, chunks, kgentScope, AnswerOptions{EmptyResponses: []string{"Nothing here & there"}})
		if a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerEmptyResponse {
			t.Errorf("%q: not an empty response: %+v", text, a)
		}
	}
	chunks[0].Content = "Relevant content was found: Redis is the default."
	a, _ := Answer("Sorry! No relevant content was found, but Redis is the default [ID:0].", chunks, kgentScope, AnswerOptions{RequireCitations: true})
	if a.NoAnswerReason != nil {
		t.Errorf("a cited answer mentioning the phrase was withheld: %+v", a.NoAnswerReason)
	}
}

func TestAnswerNeverUncitedWhenRequired(t *testing.T) {
	chunks := []ragflow.Chunk{inChunk("a", 0.9), outChunk("z", 0.9)}
	for _, text := range []string{
		"Redis is the default.",
		"Redis is the default [ID:1].",
		"Redis is the default [ID:2] ##5$$ (ID: 7).",
	} {
		a, st := Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true, WriteTools: []string{protocol.ActionCreateImprovementTask}})
		if a.Answer != "" || a.NoAnswerReason == nil || a.NoAnswerReason.Reason != protocol.NoAnswerUncited || st.Citations != 0 {
			t.Errorf("%q: %+v", text, a)
		}
		if a.Actions[0].Enabled || !a.Actions[1].Enabled {
			t.Errorf("%q: actions %+v", text, a.Actions)
		}
	}
}

// TestPromptNumberingMatchesAnswer: the gate numbers the in-scope chunks
// into the prompt and hands the same slice to Answer, so [ID:n] in the
// generated text names the n-th block the LLM saw, never a dropped chunk.
func TestPromptNumberingMatchesAnswer(t *testing.T) {
	retrieved := []ragflow.Chunk{outChunk("secret", 0.99), inChunk("a", 0.6), inChunk("b", 0.7)}
	retrieved[2].Content = "B says so."
	kept, dropped := InScope(retrieved, kgentScope)
	prompt := ragflow.BuildPrompt("q", kept, nil)[0].Content
	if dropped != 1 || strings.Contains(prompt, "secret") || !strings.Contains(prompt, "ID: 1\nTitle: Page b\n") {
		t.Fatalf("dropped %d, prompt:\n%s", dropped, prompt)
	}
	a, _ := Answer("B says so [ID:1].", kept, kgentScope, AnswerOptions{RequireCitations: true})
	if len(a.Citations) != 1 || a.Citations[0].ChunkID != "b" || a.Answer != "B says so [1]." {
		t.Errorf("answer %q citations %+v", a.Answer, a.Citations)
	}
}
