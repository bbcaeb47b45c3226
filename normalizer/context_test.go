package normalizer

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

func TestInScope(t *testing.T) {
	mod := func(f func(c *ragflow.Chunk)) ragflow.Chunk {
		c := inChunk("x", 0.5)
		f(&c)
		return c
	}
	cases := map[string]struct {
		chunk ragflow.Chunk
		keep  bool
	}{
		"in scope":             {inChunk("a", 0.5), true},
		"scope root page":      {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = kgentPath }), true},
		"other project":        {outChunk("b", 0.5), false},
		"working doc":          {mod(func(c *ragflow.Chunk) { c.Metadata["status"] = "working" }), false},
		"unknown status":       {mod(func(c *ragflow.Chunk) { c.Metadata["status"] = "draft" }), false},
		"other version":        {mod(func(c *ragflow.Chunk) { c.Metadata["version"] = "v1.0" }), false},
		"sibling path":         {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = kgentPath + "-extras/index.md" }), false},
		"dot-dot path":         {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = kgentPath + "/../x.md" }), false},
		"double slash":         {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = kgentPath + "//x.md" }), false},
		"trailing slash":       {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = kgentPath + "/x/" }), false},
		"path of another type": {mod(func(c *ragflow.Chunk) { c.Metadata["path"] = []any{kgentPath} }), false},
		"upper-case project":   {mod(func(c *ragflow.Chunk) { c.Metadata["project"] = "Kunora-Kgent" }), false},
		"no metadata":          {mod(func(c *ragflow.Chunk) { c.Metadata = nil }), false},
		"no id":                {mod(func(c *ragflow.Chunk) { c.ID = "" }), false},
	}
	for name, tc := range cases {
		kept, dropped := InScope([]ragflow.Chunk{tc.chunk}, kgentScope)
		if (len(kept) == 1) != tc.keep || len(kept)+dropped != 1 {
			t.Errorf("%s: kept %d dropped %d, want keep=%v", name, len(kept), dropped, tc.keep)
		}
	}
	c := mod(func(c *ragflow.Chunk) { c.Metadata["status"] = "working" })
	if kept, _ := InScope([]ragflow.Chunk{c}, withWorking(kgentScope)); len(kept) != 1 {
		t.Error("a working doc was dropped although the scope includes working docs")
	}
	if kept, _ := InScope(nil, kgentScope); kept == nil {
		t.Error("kept is nil")
	}
}

func TestContextPackOrderDedupeAndEstimate(t *testing.T) {
	a, b, a2 := inChunk("a", 0.3), inChunk("b", 0.6), inChunk("a", 0.8)
	pack, dropped := ContextPack("q", []ragflow.Chunk{a, outChunk("z", 0.99), b, a2}, kgentScope, 0)
	if dropped != 1 || pack.MaxTokens != protocol.DefaultContextTokens || pack.Truncated {
		t.Errorf("dropped %d, max %d, truncated %v", dropped, pack.MaxTokens, pack.Truncated)
	}
	var ids []string
	var scores []float64
	want := 0
	for _, it := range pack.Items {
		ids = append(ids, it.ChunkID)
		scores = append(scores, it.Score)
		want += (len([]rune(it.Title)) + len([]rune(it.Path)) + len([]rune(it.Content)) + 3) / 4
	}
	if !slices.Equal(ids, []string{"a", "b"}) || !slices.Equal(scores, []float64{0.8, 0.6}) {
		t.Errorf("items %v scores %v", ids, scores)
	}
	if pack.TokenEstimate != want || len(pack.Citations) != 2 || pack.Citations[0].Anchor != "heading-a" {
		t.Errorf("estimate %d (want %d), citations %+v", pack.TokenEstimate, want, pack.Citations)
	}
	if pack.Question != "q" || !slices.Equal(pack.Scope.Paths, kgentScope.Paths) {
		t.Errorf("question/scope = %q %+v", pack.Question, pack.Scope)
	}
}

func TestContextPackBudget(t *testing.T) {
	big := inChunk("big", 0.9)
	big.Content = strings.Repeat("memory ", 400) // 2800 runes
	small := inChunk("small", 0.5)
	itemTokens := func(c ragflow.Chunk) int { return contextTokens(ragContextItem(&c)) }

	pack, _ := ContextPack("q", []ragflow.Chunk{big, small}, kgentScope, 100000)
	if pack.MaxTokens != protocol.MaxContextTokens || pack.Truncated || len(pack.Items) != 2 {
		t.Errorf("over-large budget: max %d, truncated %v, %d items", pack.MaxTokens, pack.Truncated, len(pack.Items))
	}

	// The best item is cut to what remains; nothing after it is added.
	pack, _ = ContextPack("q", []ragflow.Chunk{big, small}, kgentScope, 300)
	if !pack.Truncated || len(pack.Items) != 1 || pack.TokenEstimate > 300 || !strings.HasSuffix(pack.Items[0].Content, "…") {
		t.Errorf("cut: truncated %v, %d items, estimate %d", pack.Truncated, len(pack.Items), pack.TokenEstimate)
	}

	// Too little room left for a useful cut: the item is left out.
	budget := itemTokens(small) + 20
	small.Similarity = 0.95
	pack, _ = ContextPack("q", []ragflow.Chunk{big, small}, kgentScope, budget)
	if !pack.Truncated || len(pack.Items) != 1 || pack.Items[0].ChunkID != "small" || pack.Items[0].Content != small.Content {
		t.Errorf("left out: truncated %v, items %+v", pack.Truncated, pack.Items)
	}
}

func TestContextPackEmptyEncodesArrays(t *testing.T) {
	pack, dropped := ContextPack("q", []ragflow.Chunk{outChunk("z", 1)}, kgentScope, 0)
	b, _ := json.Marshal(pack)
	if dropped != 1 || !strings.Contains(string(b), `"items":[]`) || !strings.Contains(string(b), `"citations":[]`) {
		t.Errorf("pack = %s", b)
	}
}
