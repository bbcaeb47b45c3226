package mcp

import (
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wikigate/wikigate/protocol"
)

// A citation whose unsafe url the gate dropped gets no resource_link (not
// one to "" nor to the pages base); the others keep their number's link.
func TestCitationWithoutURLHasNoLink(t *testing.T) {
	h, err := New(Config{Enabled: true, PagesBaseURL: "https://docs.example/"}, newFakeGate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	links := h.citationLinks([]protocol.Citation{{Path: "a.md", Title: "A"}, {Path: "b.md", URL: "/b", Title: "B"}})
	if len(links) != 1 {
		t.Fatalf("%d links, want 1: %+v", len(links), links)
	}
	if l := links[0].(*mcpsdk.ResourceLink); l.URI != "https://docs.example/b" || l.Title != "[2] B" {
		t.Errorf("link %+v", l)
	}
	if got := h.pageURI(""); got != "" {
		t.Errorf("pageURI(\"\") = %q, want none", got)
	}
}
