package retrieval

import (
	"slices"

	"github.com/wikigate/wikigate/ragflow"
)

// Merge joins the chunks of several retrievals: one per chunk id, with its
// best similarity (and that retrieval's other scores), sorted by it, best
// first, at most limit. Chunks of equal score keep the order of the
// retrieval that found them first, so one query's list comes out as it
// went in.
func Merge(lists [][]ragflow.Chunk, limit int) []ragflow.Chunk {
	if len(lists) == 1 && len(lists[0]) <= limit {
		return lists[0]
	}
	at := map[string]int{}
	var out []ragflow.Chunk
	for _, list := range lists {
		for _, c := range list {
			i, seen := at[c.ID]
			switch {
			case c.ID == "": // no id to merge by: a chunk of its own
				out = append(out, c)
			case !seen:
				at[c.ID] = len(out)
				out = append(out, c)
			case c.Similarity > out[i].Similarity:
				out[i] = c
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ragflow.Chunk) int {
		switch {
		case a.Similarity > b.Similarity:
			return -1
		case a.Similarity < b.Similarity:
			return 1
		}
		return 0
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
