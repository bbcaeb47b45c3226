package normalizer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// FuzzAnswer feeds arbitrary answer texts and chunk layouts to Answer and
// ContextPack: no panic, every citation is a returned in-scope chunk, a
// no-answer exactly when nothing is cited (never an uncited answer, with or
// without RequireCitations), every [n] in the answer within
// 1..len(citations) and every citation referenced, every shown sentence
// cited, confidence in {high, medium, low}, and the context pack within its
// budget. Half the chunks hold the text itself, so answers are supported
// and shown, not only withheld.
func FuzzAnswer(f *testing.F) {
	for _, file := range ragInputs(f) {
		in := readRagInput(f, file)
		f.Add(in.Text, []byte{0x00, 0x09, 0x12, 0x25, 0x33}, true)
	}
	for _, text := range []string{
		"A [ID:0]. B [ID: 1]. C 【ID:2】 D (ID:3) ##4$$ [ID:0, 1, 99] [ID:99999999999999999999]",
		"[ID:0][ID:0][ID:0]. . . [ID:7]",
		"## Heading [ID:1]\n```\n[ID:0]\n```\n- x [ID:2]\n\n第一句【ID：0】。",
		"\xff\xfe [ID:\xff0] [ID:0",
		"Sorry! No relevant content was found in the knowledge base!",
	} {
		f.Add(text, []byte{0x01, 0x0a, 0x22, 0x3b, 0xff}, false)
	}
	f.Fuzz(func(t *testing.T, text string, layout []byte, require bool) {
		chunks := fuzzChunks(layout, text)
		eff := kgentScope
		if len(layout)%2 == 1 {
			eff = withWorking(eff)
		}
		o := AnswerOptions{RequireCitations: require, DedupeKey: "k", WriteTools: []string{protocol.ActionCreateFeedback}}
		a, st := Answer(text, chunks, eff, o)
		assertAnswerInvariants(t, text, chunks, eff, o, a, st)
		assertFuzzContextPack(t, chunks, eff, int(len(text)%300))
	})
}

// fuzzChunks turns each byte into a chunk: bits 0-2 pick its id (so ids
// repeat), bits 3-5 where it lives (four pages in scope, another project,
// a working doc, the -extras sibling, no metadata), the byte its score; an
// even byte's chunk holds the answer text (so it supports it).
func fuzzChunks(layout []byte, text string) []ragflow.Chunk {
	layout = layout[:min(len(layout), 16)]
	chunks := make([]ragflow.Chunk, 0, len(layout))
	for _, b := range layout {
		c := inChunk(fmt.Sprintf("c%d", b&7), float64(b)/255)
		if b%2 == 0 {
			c.Content = text
		}
		switch v := (b >> 3) & 7; v {
		case 0, 1, 2, 3:
			c.Metadata["path"] = fmt.Sprintf("%s/page%d.md", kgentPath, v)
		case 4:
			c.Metadata["project"] = "kunora-gateway"
		case 5:
			c.Metadata["status"] = "working"
		case 6:
			c.Metadata["path"] = kgentPath + "-extras/index.md"
		case 7:
			c.Metadata = nil
		}
		chunks = append(chunks, c)
	}
	return chunks
}

func assertFuzzContextPack(t *testing.T, chunks []ragflow.Chunk, eff protocol.Scope, maxTokens int) {
	t.Helper()
	pack, dropped := ContextPack("q", chunks, eff, maxTokens)
	kept, wantDropped := InScope(chunks, eff)
	if dropped != wantDropped || pack.Items == nil || pack.Citations == nil || len(pack.Items) != len(pack.Citations) {
		t.Fatalf("pack: dropped %d (want %d), %d items, %d citations", dropped, wantDropped, len(pack.Items), len(pack.Citations))
	}
	if pack.TokenEstimate > pack.MaxTokens {
		t.Errorf("estimate %d over budget %d", pack.TokenEstimate, pack.MaxTokens)
	}
	seen := map[string]bool{}
	for i, it := range pack.Items {
		if pack.Citations[i].ChunkID != it.ChunkID {
			t.Errorf("item %d is %q but citation %d (its [%d]) is %q", i, it.ChunkID, i, i+1, pack.Citations[i].ChunkID)
		}
		if seen[it.ChunkID] || !slices.ContainsFunc(kept, func(k ragflow.Chunk) bool { return k.ID == it.ChunkID }) {
			t.Errorf("item %q repeated or out of scope", it.ChunkID)
		}
		seen[it.ChunkID] = true
		if i > 0 && it.Score > pack.Items[i-1].Score {
			t.Errorf("items not ordered by score")
		}
	}
}
