package mcp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// render turns a gate result into a tool result: the protocol body as
// structuredContent (what a program reads) and a text rendering in content
// (what a model or a client without structured output reads). The body is
// marshaled once; the rendering reads the gate's value when it has one of
// the protocol types and decodes the body otherwise.
func (h *Handler) render(tool string, out any) (*mcpsdk.CallToolResult, error) {
	raw, err := json.Marshal(out)
	if err != nil {
		return errorResult(err), nil
	}
	res := &mcpsdk.CallToolResult{StructuredContent: json.RawMessage(raw)}
	switch tool {
	case "search":
		res.Content = text(renderSearch(as[protocol.SearchResult](out, raw)))
	case "get_page":
		res.Content = text(renderPages(as[protocol.PageResult](out, raw)))
	case "ask":
		a := as[protocol.AnswerResult](out, raw)
		res.Content = append(text(renderAnswer(a)), h.citationLinks(a.Citations)...)
	case "get_context":
		res.Content = text(renderContext(as[protocol.ContextPack](out, raw)))
	default:
		res.Content = text(renderFeedback(as[feedbackBody](out, raw)))
	}
	return res, nil
}

// as reads out as T: directly when the gate returned a T or *T, else by
// decoding its JSON (a gateway-private type with the same wire form).
func as[T any](out any, raw []byte) *T {
	switch v := out.(type) {
	case T:
		return &v
	case *T:
		if v != nil {
			return v
		}
	}
	t := new(T)
	_ = json.Unmarshal(raw, t) // marshaled from out a moment ago; a mismatch only thins the text
	return t
}

func text(s string) []mcpsdk.Content { return []mcpsdk.Content{&mcpsdk.TextContent{Text: s}} }

func renderSearch(r *protocol.SearchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d matching pages:\n", len(r.Hits), r.Total)
	for i, hit := range r.Hits {
		fmt.Fprintf(&b, "%d. %s — %s (%s)\n", i+1, hit.Title, hit.Path, hit.URL)
		if hit.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", hit.Snippet)
		}
	}
	return b.String()
}

func renderPages(r *protocol.PageResult) string {
	var b strings.Builder
	for _, p := range r.Pages {
		fmt.Fprintf(&b, "# %s\npath: %s\nurl: %s\n\n%s\n\n", p.Title, p.Path, p.URL, p.Content)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "not returned: %s: %s: %s\n", e.Path, e.Code, e.Message)
	}
	return b.String()
}

func renderAnswer(a *protocol.AnswerResult) string {
	var b strings.Builder
	if a.NoAnswerReason != nil {
		fmt.Fprintf(&b, "No answer (%s): %s\n", a.NoAnswerReason.Reason, a.NoAnswerReason.Message)
	} else {
		b.WriteString(a.Answer)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nconfidence: %s\n", a.Confidence)
	if len(a.Citations) > 0 {
		b.WriteString("\nSources:\n")
		for i, c := range a.Citations {
			fmt.Fprintf(&b, "[%d] %s — %s (%s)\n", i+1, c.Title, c.Path, c.URL)
		}
	}
	for _, act := range a.Actions {
		if act.Enabled {
			fmt.Fprintf(&b, "\nYou can call %s with dedupeKey %s to report this.\n", act.Type, act.DedupeKey)
		}
	}
	return b.String()
}

// citationLinks are the answer's numbered citations as resource_link
// content, so a client can open or fetch the cited pages.
func (h *Handler) citationLinks(cs []protocol.Citation) []mcpsdk.Content {
	out := make([]mcpsdk.Content, 0, len(cs))
	for i, c := range cs {
		out = append(out, &mcpsdk.ResourceLink{
			URI: h.pageURI(c.URL), Name: c.Path, Title: fmt.Sprintf("[%d] %s", i+1, c.Title),
			Description: "citation " + fmt.Sprint(i+1) + " (" + c.SourceProject + ", " + c.Version + ")",
			MIMEType:    "text/html",
		})
	}
	return out
}

// pageURI resolves a page URL against PagesBaseURL when configured.
func (h *Handler) pageURI(u string) string {
	if h.cfg.PagesBaseURL == "" {
		return u
	}
	base, err1 := url.Parse(h.cfg.PagesBaseURL)
	ref, err2 := url.Parse(u)
	if err1 != nil || err2 != nil {
		return u
	}
	return base.ResolveReference(ref).String()
}

func renderContext(p *protocol.ContextPack) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d passages (about %d of %d tokens", len(p.Items), p.TokenEstimate, p.MaxTokens)
	if p.Truncated {
		b.WriteString(", truncated")
	}
	b.WriteString("):\n")
	for i, it := range p.Items {
		fmt.Fprintf(&b, "\n[%d] %s — %s (%s)\n%s\n", i+1, it.Title, it.Path, it.URL, it.Content)
	}
	return b.String()
}

// feedbackBody is the wire form of a feedback response; the gateway's type
// is private to it.
type feedbackBody struct {
	Record struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		DedupeKey string `json:"dedupeKey"`
		Status    string `json:"status"`
		Count     int    `json:"count"`
	} `json:"record"`
	Created bool `json:"created"`
}

func renderFeedback(f *feedbackBody) string {
	verb := "Merged into existing"
	if f.Created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s record %s (status %s, reported %d times, dedupeKey %s).",
		verb, f.Record.Type, f.Record.ID, f.Record.Status, f.Record.Count, f.Record.DedupeKey)
}
