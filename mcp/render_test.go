package mcp

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// TestStructuredIsMarshal: structuredContent is json.Marshal's bytes of
// the gate's result whichever way it was written (a search result by
// hand, anything else by encoding/json), and a result JSON cannot carry
// is still an error.
func TestStructuredIsMarshal(t *testing.T) {
	h, err := New(Config{Enabled: true}, newFakeGate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hits := benchHits(3)
	hits[1].Snippet, hits[2].Title, hits[2].Anchor = "<em>a&b</em> \u2028 \xff", "é \"q\" \\", "h"
	search := protocol.SearchResult{Total: 9, Hits: hits, Audit: protocol.Audit{RequestID: "r", Caller: "agent:<x>", SessionID: "s"}}
	outs := map[string]any{
		"search value":   search,
		"search pointer": &search,
		"no hits":        protocol.SearchResult{},
		"nil pointer":    (*protocol.SearchResult)(nil),
		"page":           fakePage("a/b.md", "main", protocol.Audit{RequestID: "r"}),
		"map":            map[string]any{"audit": "<&>"},
	}
	for name, out := range outs {
		for range 2 { // the second time from a pooled output
			o, err := h.buildOutput("search", out)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, _ := json.Marshal(out)
			if string(o.structured) != string(want) {
				t.Errorf("%s:\n%s\nwant\n%s", name, o.structured, want)
			}
			o.release()
		}
	}
	nan := protocol.SearchResult{Hits: []protocol.SearchHit{{Score: math.NaN()}}}
	if _, err := h.buildOutput("search", nan); err == nil {
		t.Error("a NaN score was written")
	}
}
