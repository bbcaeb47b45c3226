package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// output is a gate result made ready for a tool result: the protocol body
// as structuredContent (what a program reads) and a text rendering for
// content (what a model or a client without structured output reads).
// Both paths build it the same way: the SDK path turns it into a
// CallToolResult (result), the fast path writes it straight into its
// response (appendCallResult), so the two cannot render differently.
//
// An output from buildOutput comes from a pool with its buffers (on the
// fast path they were a tenth of the front's allocations); release
// returns it once its bytes have been written or copied.
type output struct {
	structured []byte           // JSON, HTML-escaped as json.Marshal writes it
	text       []byte           // the rendering, unescaped
	links      []mcpsdk.Content // an answer's citations as resource links
	isError    bool

	pooled bool // from outputs: release puts it back
}

var outputs = sync.Pool{New: func() any { return &output{pooled: true} }}

// release returns o to the pool, unless its buffers grew past
// maxPooledBuffer (one huge page should not stay pinned).
func (o *output) release() {
	if !o.pooled || cap(o.structured) > maxPooledBuffer || cap(o.text) > maxPooledBuffer {
		return
	}
	o.structured, o.text, o.links, o.isError = o.structured[:0], o.text[:0], nil, false
	outputs.Put(o)
}

// errNoResult: the gate reported success without a result.
var errNoResult = errors.New("mcp: the gate answered no result")

// buildOutput writes out's structuredContent, text and links
// (protocol.Result) into a pooled output (release it when done). A result
// JSON cannot carry (a NaN score) is the error, as encoding/json refuses it.
func (h *Handler) buildOutput(out protocol.Result) (*output, error) {
	if out == nil {
		return nil, errNoResult
	}
	o := outputs.Get().(*output)
	structured, err := out.AppendStructured(o.structured[:0])
	if err != nil {
		o.release()
		return nil, err
	}
	o.structured = structured
	o.text = out.AppendText(o.text[:0])
	if cs := out.Links(); len(cs) > 0 {
		o.links = h.citationLinks(cs)
	}
	return o, nil
}

// render is the SDK path's tool result for a gate result. A marshal
// failure is an isError result, like any other failure of the call.
func (h *Handler) render(out protocol.Result) *mcpsdk.CallToolResult {
	o, err := h.buildOutput(out)
	if err != nil {
		return errorResult(err)
	}
	defer o.release()
	res := &mcpsdk.CallToolResult{StructuredContent: json.RawMessage(bytes.Clone(o.structured))}
	res.Content = append(text(string(o.text)), o.links...)
	return res
}

func text(s string) []mcpsdk.Content { return []mcpsdk.Content{&mcpsdk.TextContent{Text: s}} }

// citationLinks are the answer's numbered citations as resource_link
// content, so a client can open or fetch the cited pages. A citation
// without a url (the gate dropped an unsafe one: docs/docs-sites.md "Safe URLs") has
// no link; the text still lists it under its number.
func (h *Handler) citationLinks(cs []protocol.Citation) []mcpsdk.Content {
	out := make([]mcpsdk.Content, 0, len(cs))
	for i, c := range cs {
		if c.URL == "" {
			continue
		}
		n := strconv.Itoa(i + 1)
		out = append(out, &mcpsdk.ResourceLink{
			URI: h.pageURI(c.URL), Name: c.Path, Title: "[" + n + "] " + c.Title,
			Description: "citation " + n + " (" + c.SourceProject + ", " + c.Version + ")",
			MIMEType:    "text/html",
		})
	}
	return out
}

// pageURI resolves a page URL against PagesBaseURL when configured. No
// url stays none: it is not the base's page.
func (h *Handler) pageURI(u string) string {
	if h.cfg.PagesBaseURL == "" || u == "" {
		return u
	}
	base, err1 := url.Parse(h.cfg.PagesBaseURL)
	ref, err2 := url.Parse(u)
	if err1 != nil || err2 != nil {
		return u
	}
	return base.ResolveReference(ref).String()
}
