package retrieval

import (
	"testing"

	"github.com/wikigate/wikigate/ragflow"
)

func ids(chunks []ragflow.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.ID
	}
	return out
}

// TestMerge: one chunk per id with its best score, sorted by it, cut at
// the limit; ties keep the order they were found in.
func TestMerge(t *testing.T) {
	a := []ragflow.Chunk{{ID: "x", Similarity: 0.5}, {ID: "y", Similarity: 0.4}, {ID: "z", Similarity: 0.3}}
	b := []ragflow.Chunk{{ID: "w", Similarity: 0.9, Content: "w"}, {ID: "z", Similarity: 0.8, Content: "z from b"}, {ID: "y", Similarity: 0.1}}
	got := Merge([][]ragflow.Chunk{a, b}, 3)
	if want := []string{"w", "z", "x"}; len(got) != 3 || ids(got)[0] != want[0] || ids(got)[1] != want[1] || ids(got)[2] != want[2] {
		t.Fatalf("Merge = %v, want %v", ids(got), want)
	}
	if got[1].Similarity != 0.8 || got[1].Content != "z from b" {
		t.Errorf("z = %+v, want the better-scored copy", got[1])
	}
	tied := Merge([][]ragflow.Chunk{{{ID: "p", Similarity: 0.5}, {ID: "q", Similarity: 0.5}}, {{ID: "r", Similarity: 0.5}}}, 10)
	if got := ids(tied); len(got) != 3 || got[0] != "p" || got[1] != "q" || got[2] != "r" {
		t.Errorf("ties = %v, want p q r", got)
	}
	// chunks without an id are never merged into one
	if got := Merge([][]ragflow.Chunk{{{Similarity: 0.2}}, {{Similarity: 0.3}}}, 10); len(got) != 2 {
		t.Errorf("id-less chunks merged: %v", got)
	}
}
