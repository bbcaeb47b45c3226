package normalizer

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/scope"
)

// InScope is the response-side check for RAGFlow chunks: a chunk is kept
// when it has an id, comes from one of eff.Datasets (when set), and its
// document metadata (path, project, version, status) is inside eff
// (scope.Contains, which also holds each project to eff.ProjectPaths). A
// chunk without metadata, with a
// path that is not a clean repository path ("a/../b", "a//b"), or outside
// eff is dropped and counted. Run it on retrieval results BEFORE numbering
// chunks into the prompt, so the LLM never sees what the caller may not.
// kept is never nil.
func InScope(chunks []ragflow.Chunk, eff protocol.Scope) (kept []ragflow.Chunk, dropped int) {
	kept = make([]ragflow.Chunk, 0, len(chunks))
	for i := range chunks {
		if ragChunkInScope(&chunks[i], eff) {
			kept = append(kept, chunks[i])
		} else {
			dropped++
		}
	}
	return kept, dropped
}

// ragChunkInScope also drops a chunk that names no dataset when the
// decision listed its datasets: RAGFlow always says which dataset a chunk
// came from, so a chunk without one cannot be shown to come from a decided
// dataset (scope.Contains only checks a dataset id that is there).
func ragChunkInScope(c *ragflow.Chunk, eff protocol.Scope) bool {
	if c.ID == "" || (eff.Datasets != nil && c.DatasetID == "") {
		return false
	}
	path := c.MetaString("path")
	if clean, err := scope.NormalizePath("path", path); err != nil || clean != path {
		return false
	}
	return scope.Contains(eff, scope.Doc{
		Project:   c.MetaString("project"),
		Version:   c.MetaString("version"),
		Status:    c.MetaString("status"),
		Path:      path,
		DatasetID: c.DatasetID,
	})
}

// contextMinCutRunes is the least content worth keeping when the budget
// cuts an item short: less than this is noise, so the item is left out.
const contextMinCutRunes = 200

// ContextPack builds the get_context body (without Audit) from retrieved
// chunks: the in-scope ones (InScope), de-duplicated by chunk id, best score
// first, added while they fit maxTokens (protocol.DefaultContextTokens when
// <= 0, at most protocol.MaxContextTokens). Tokens are estimated as runes/4
// rounded up, per item, title and path included. The first item that does
// not fit is cut to the remaining budget when a useful part of it fits, and
// nothing after it is added, so a lower-scored item never displaces a
// better one; Truncated says something was cut or left out. It returns the
// pack and the number of chunks dropped by the scope check.
func ContextPack(question string, chunks []ragflow.Chunk, eff protocol.Scope, maxTokens int) (protocol.ContextPack, int) {
	kept, dropped := InScope(chunks, eff)
	budget := contextBudget(maxTokens)
	pack := protocol.ContextPack{
		Question:  question,
		Scope:     eff,
		Items:     []protocol.ContextItem{},
		Citations: []protocol.Citation{},
		MaxTokens: budget,
	}
	for _, c := range ragUniqueByScore(kept) {
		item := ragContextItem(&c)
		tokens := contextTokens(item)
		if pack.TokenEstimate+tokens > budget {
			pack.Truncated = true
			if !contextCut(&item, budget-pack.TokenEstimate) {
				break
			}
			tokens = contextTokens(item)
		}
		pack.Items = append(pack.Items, item)
		pack.Citations = append(pack.Citations, ragCitation(&c))
		pack.TokenEstimate += tokens
		if pack.Truncated {
			break
		}
	}
	return pack, dropped
}

func contextBudget(maxTokens int) int {
	switch {
	case maxTokens <= 0:
		return protocol.DefaultContextTokens
	case maxTokens > protocol.MaxContextTokens:
		return protocol.MaxContextTokens
	default:
		return maxTokens
	}
}

func ragContextItem(c *ragflow.Chunk) protocol.ContextItem {
	cit := ragCitation(c)
	return protocol.ContextItem{
		Path:          cit.Path,
		URL:           cit.URL,
		Title:         cit.Title,
		Anchor:        cit.Anchor,
		ChunkID:       cit.ChunkID,
		Content:       c.Content,
		Score:         c.Similarity,
		SourceProject: cit.SourceProject,
		Version:       cit.Version,
	}
}

// contextTokens estimates an item's tokens: runes of title, path and
// content over 4, rounded up.
func contextTokens(it protocol.ContextItem) int {
	return (contextFixedRunes(it) + utf8.RuneCountInString(it.Content) + 3) / 4
}

func contextFixedRunes(it protocol.ContextItem) int {
	return utf8.RuneCountInString(it.Title) + utf8.RuneCountInString(it.Path)
}

// contextCut shortens it's content (marked with "…") to fit tokens, or
// reports false when what would remain is too little to be worth it.
func contextCut(it *protocol.ContextItem, tokens int) bool {
	room := 4*tokens - contextFixedRunes(*it)
	if room < contextMinCutRunes {
		return false
	}
	runes := []rune(it.Content)
	it.Content = strings.TrimRight(string(runes[:room-1]), " \t\n") + "…"
	return true
}

// ragUniqueByScore keeps one chunk per id (the best-scored copy) and sorts
// them best first; equal scores keep retrieval order.
func ragUniqueByScore(chunks []ragflow.Chunk) []ragflow.Chunk {
	out := make([]ragflow.Chunk, 0, len(chunks))
	at := make(map[string]int, len(chunks))
	for _, c := range chunks {
		if i, seen := at[c.ID]; seen {
			if c.Similarity > out[i].Similarity {
				out[i] = c
			}
			continue
		}
		at[c.ID] = len(out)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b ragflow.Chunk) int { return cmp.Compare(b.Similarity, a.Similarity) })
	return out
}
