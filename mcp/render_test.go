package mcp

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// TestStructuredIsMarshal: structuredContent is json.Marshal's bytes of
// the gate's result whichever way it was written (a search result or an
// answer by hand, anything else by encoding/json, a feedback receipt as
// stored), and a result JSON cannot carry is still an error.
func TestStructuredIsMarshal(t *testing.T) {
	h, err := New(Config{Enabled: true}, newFakeGate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hits := benchHits(3)
	hits[1].Snippet, hits[2].Title, hits[2].Anchor = "<em>a&b</em> \u2028 \xff", "é \"q\" \\", "h"
	audit := protocol.Audit{RequestID: "r", Caller: "agent:<x>", SessionID: "s"}
	search := protocol.SearchResult{Total: 9, Hits: hits, Audit: audit}
	page := fakePage("a/b.md", "main", protocol.Audit{RequestID: "r"})
	answer := protocol.AnswerResult{Answer: "Use <Redis> & more [1].", Confidence: "high", Audit: audit,
		Citations: []protocol.Citation{{Path: "a.md", URL: "/a?x=1&y=<2>", Title: "A \u2029"}}}
	pack := protocol.ContextPack{Question: "q<", Items: []protocol.ContextItem{{Path: "a.md", Content: "<b>&</b>", Score: 0.5}}, Audit: audit}
	doc := map[string]any{"audit": "<&>"}
	outs := []struct {
		name string
		out  protocol.Result
		want any
	}{
		{"search", &search, search},
		{"no hits", &protocol.SearchResult{}, protocol.SearchResult{}},
		{"page", &page, page},
		{"answer", &answer, answer},
		{"context", &pack, pack},
		{"feedback receipt", &protocol.FeedbackReceipt{Body: fakeReceipt}, json.RawMessage(fakeReceipt)},
		{"json body", protocol.JSON(doc), doc},
	}
	for _, c := range outs {
		for range 2 { // the second time from a pooled output
			o, err := h.buildOutput(c.out)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want, _ := json.Marshal(c.want)
			if string(o.structured) != string(want) {
				t.Errorf("%s:\n%s\nwant\n%s", c.name, o.structured, want)
			}
			o.release()
		}
	}
	nan := protocol.SearchResult{Hits: []protocol.SearchHit{{Score: math.NaN()}}}
	if _, err := h.buildOutput(&nan); err == nil {
		t.Error("a NaN score was written")
	}
	if _, err := h.buildOutput(nil); err == nil {
		t.Error("no result was rendered as a success")
	}
}
