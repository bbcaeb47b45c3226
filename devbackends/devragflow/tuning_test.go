package devragflow

import (
	"math"
	"testing"
)

// TestRetrievalHonoursTheDocumentedKnobs checks the three scoring knobs as
// RAGFlow's HTTP API documents them: similarity is
// (1 - vector_similarity_weight) × term + vector_similarity_weight × vector;
// chunks under similarity_threshold are left out (the threshold is ignored
// when the weight is 0); top_k is the number of chunks engaged in vector
// cosine computation, so with top_k 1 one chunk keeps its vector
// similarity and every other chunk is still recalled, by its terms alone.
func TestRetrievalHonoursTheDocumentedKnobs(t *testing.T) {
	s := newTestServer(t)
	base := func(extra map[string]any) []map[string]any {
		body := map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora helm memory redis", "page_size": 100}
		for k, v := range extra {
			body[k] = v
		}
		return chunksOf(retrieve(t, s, body))
	}
	for _, w := range []float64{0.3, 0.7} {
		for _, c := range base(map[string]any{"vector_similarity_weight": w, "similarity_threshold": 0}) {
			want := (1-w)*c["term_similarity"].(float64) + w*c["vector_similarity"].(float64)
			if got := c["similarity"].(float64); math.Abs(got-want) > 1e-9 {
				t.Errorf("weight %v: similarity %v, want %v", w, got, want)
			}
		}
	}
	all := base(map[string]any{"similarity_threshold": 0})
	if len(all) < 3 {
		t.Fatalf("only %d chunks: the test needs several", len(all))
	}
	threshold := all[len(all)/2]["similarity"].(float64)
	for _, c := range base(map[string]any{"similarity_threshold": threshold}) {
		if c["similarity"].(float64) < threshold {
			t.Errorf("threshold %v kept a chunk of similarity %v", threshold, c["similarity"])
		}
	}
	if got := base(map[string]any{"similarity_threshold": 0.99, "vector_similarity_weight": 0}); len(got) != len(all) {
		t.Errorf("weight 0: %d chunks, want the threshold ignored (%d)", len(got), len(all))
	}
	one := base(map[string]any{"similarity_threshold": 0, "top_k": 1})
	withVector := 0
	for _, c := range one {
		if c["vector_similarity"].(float64) > 0 {
			withVector++
		}
	}
	if len(one) != len(all) || withVector != 1 {
		t.Errorf("top_k 1: %d chunks, %d with a vector similarity; want all %d recalled and 1 engaged in the vector computation", len(one), withVector, len(all))
	}
}
