package normalizer

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

func progressiveChunks() ([]ragflow.Chunk, protocol.Scope) {
	meta := func(path string) map[string]any {
		return map[string]any{"path": path, "url": "/x", "title": "T", "project": "p", "version": "main", "status": "approved"}
	}
	chunks := []ragflow.Chunk{
		{ID: "a", Content: "Agent memory uses a sliding window of recent turns.", Similarity: 0.9, DatasetID: "d", Metadata: meta("docs/p/a.md")},
		{ID: "b", Content: "Redis stores agent memory when memory.backend is redis.", Similarity: 0.8, DatasetID: "d", Metadata: meta("docs/p/b.md")},
		{ID: "out", Content: "Secret draft about memory.", Similarity: 0.95, DatasetID: "d", Metadata: meta("other/c.md")},
	}
	return chunks, protocol.Scope{Projects: []string{"p"}, Paths: []string{"docs/p"}, Version: "main"}
}

// feed hands text to p in small pieces, as a generation arrives.
func feed(p *Progressive, text string, step int) (shown string, cited int) {
	for i := step; ; i += step {
		if i > len(text) {
			i = len(text)
		}
		d, cs := p.Advance(text[:i])
		shown += d
		if cs != nil {
			cited = len(cs)
		}
		for _, m := range regexp.MustCompile(`\[(\d+)\]`).FindAllStringSubmatch(d, -1) {
			if n, _ := strconv.Atoi(m[1]); n > cited {
				panic("a delta cited [" + m[1] + "] before its citation was announced")
			}
		}
		if i == len(text) {
			return shown, cited
		}
	}
}

func TestProgressiveShowsOnlyVerifiedTextInTheFinalNumbering(t *testing.T) {
	chunks, eff := progressiveChunks()
	o := AnswerOptions{RequireCitations: true}
	text := "Agent memory uses a sliding window [ID:0]. The moon is made of cheese [ID:1]. Redis stores agent memory when memory.backend is redis [ID:1][ID:2]. Unsupported claim here."
	p := NewProgressive(chunks, eff, o)
	shown, _ := feed(p, text, 3)
	res, _ := Answer(text, chunks, eff, o)
	shown += p.Finish(res)
	if shown != res.Answer {
		t.Fatalf("shown %q, result %q", shown, res.Answer)
	}
	if res.Answer != "Agent memory uses a sliding window [1]. Redis stores agent memory when memory.backend is redis [2]." {
		t.Fatalf("answer %q", res.Answer)
	}
}

// A sentence citing a lower-scoring chunk goes out once it is complete,
// before the model cites a better-scoring one: numbers follow first
// citation, so nothing later can renumber it (they were ordered by score,
// and the sentence waited to the end).
func TestProgressiveShowsASentenceBeforeABetterScoringCitation(t *testing.T) {
	chunks, eff := progressiveChunks()
	o := AnswerOptions{RequireCitations: true}
	text := "Redis stores agent memory when memory.backend is redis [ID:1]. Agent memory uses a sliding window [ID:0]. "
	p := NewProgressive(chunks, eff, o)
	d, cites := p.Advance(text[:len(text)-38]) // "… [ID:1]. Agent": the second sentence has begun
	if d != "Redis stores agent memory when memory.backend is redis [1]." || len(cites) != 1 || cites[0].ChunkID != "b" {
		t.Fatalf("first sentence: delta %q citations %+v", d, cites)
	}
	res, _ := Answer(text, chunks, eff, o)
	rest := p.Finish(res)
	if d+rest != res.Answer || res.Answer != "Redis stores agent memory when memory.backend is redis [1]. Agent memory uses a sliding window [2]." {
		t.Fatalf("finish %q, answer %q", rest, res.Answer)
	}
	if res.Citations[0].ChunkID != "b" || res.Citations[1].ChunkID != "a" {
		t.Fatalf("citations not in order of first citation: %+v", res.Citations)
	}
}

func TestProgressiveNoAnswerShowsNothing(t *testing.T) {
	chunks, eff := progressiveChunks()
	o := AnswerOptions{RequireCitations: true}
	text := "The moon is made of cheese [ID:0]. Secret draft about memory [ID:2]. Nothing else."
	p := NewProgressive(chunks, eff, o)
	shown, cited := feed(p, text, 2)
	res, _ := Answer(text, chunks, eff, o)
	if shown != "" || cited != 0 || p.Finish(res) != "" || res.NoAnswerReason == nil {
		t.Fatalf("shown %q cited %d result %+v", shown, cited, res.NoAnswerReason)
	}
}
