package mcp

import (
	"bytes"
	"encoding/json"
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
// An output from buildOutput comes from a pool with its buffers and its
// encoder (on the fast path they were a tenth of the front's allocations);
// release returns it once its bytes have been written or copied.
type output struct {
	structured []byte           // JSON, HTML-escaped as encoding/json writes it
	text       []byte           // the rendering, unescaped
	links      []mcpsdk.Content // an answer's citations as resource links
	isError    bool

	pooled bool          // from outputs: release puts it back
	sbuf   []byte        // structured, when appended by hand (marshal)
	sb     bytes.Buffer  // structured, as enc writes it
	enc    *json.Encoder // HTML-escaped, as json.Marshal and the SDK's structuredContent
}

var outputs = sync.Pool{New: func() any {
	o := &output{pooled: true}
	o.enc = json.NewEncoder(&o.sb)
	return o
}}

// release returns o to the pool, unless its buffers grew past
// maxPooledBuffer (one huge page should not stay pinned).
func (o *output) release() {
	if !o.pooled || o.sb.Cap() > maxPooledBuffer || cap(o.text) > maxPooledBuffer || cap(o.sbuf) > maxPooledBuffer {
		return
	}
	o.sb.Reset()
	o.structured, o.sbuf, o.text, o.links, o.isError = nil, o.sbuf[:0], o.text[:0], nil, false
	outputs.Put(o)
}

// buildOutput marshals out once and renders its text, into a pooled
// output (release it when done). The text is read from the gate's value
// when it has one of the protocol types, or from the body otherwise.
func (h *Handler) buildOutput(tool string, out any) (*output, error) {
	o := outputs.Get().(*output)
	if err := o.marshal(out); err != nil {
		o.release()
		return nil, err
	}
	raw := o.structured
	t := o.text[:0]
	switch tool {
	case "search":
		v := as[protocol.SearchResult](out, raw)
		t = appendSearch(t, &v)
	case "get_page":
		v := as[protocol.PageResult](out, raw)
		t = appendPages(t, &v)
	case "ask":
		v := as[protocol.AnswerResult](out, raw)
		t = appendAnswer(t, &v)
		o.links = h.citationLinks(v.Citations)
	case "get_context":
		v := as[protocol.ContextPack](out, raw)
		t = appendContext(t, &v)
	default:
		v := as[feedbackBody](out, raw)
		t = appendFeedback(t, &v)
	}
	o.text = t
	return o, nil
}

// marshal sets o.structured to out's JSON as json.Marshal writes it. A
// search result, the most frequent, is appended by hand as the HTTP route
// writes it (protocol.SearchResult.AppendJSON, the same bytes without
// encoding/json's reflection: ~2.7 us of six hits); a NaN score it cannot
// write goes to encoding/json, which refuses it as before.
func (o *output) marshal(out any) error {
	var r *protocol.SearchResult
	switch v := out.(type) {
	case protocol.SearchResult:
		r = &v
	case *protocol.SearchResult:
		r = v
	}
	if r != nil {
		if b, err := r.AppendJSON(o.sbuf[:0], true); err == nil {
			o.sbuf, o.structured = b, b
			return nil
		}
	}
	if err := o.enc.Encode(out); err != nil {
		return err
	}
	o.structured = bytes.TrimSuffix(o.sb.Bytes(), []byte{'\n'})
	return nil
}

// render is the SDK path's tool result for a gate result. A marshal
// failure is an isError result, like any other failure of the call.
func (h *Handler) render(tool string, out any) (*mcpsdk.CallToolResult, error) {
	o, err := h.buildOutput(tool, out)
	if err != nil {
		return errorResult(err), nil
	}
	defer o.release()
	res := &mcpsdk.CallToolResult{StructuredContent: json.RawMessage(bytes.Clone(o.structured))}
	res.Content = append(text(string(o.text)), o.links...)
	return res, nil
}

// as reads out as T: directly when the gate returned a T or *T, else by
// decoding its JSON (a gateway-private type with the same wire form). It
// returns a copy rather than a pointer, so that the common case (the gate
// returned a T) allocates nothing.
func as[T any](out any, raw []byte) T {
	switch v := out.(type) {
	case T:
		return v
	case *T:
		if v != nil {
			return *v
		}
	}
	var t T
	_ = json.Unmarshal(raw, &t) // marshaled from out a moment ago; a mismatch only thins the text
	return t
}

func text(s string) []mcpsdk.Content { return []mcpsdk.Content{&mcpsdk.TextContent{Text: s}} }

// The renderings below append to b with strconv rather than fmt: they run
// on every call, and fmt's reflection was a tenth of the fast path's CPU.

func appendSearch(b []byte, r *protocol.SearchResult) []byte {
	b = strconv.AppendInt(b, int64(len(r.Hits)), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(r.Total), 10)
	b = append(b, " matching pages:\n"...)
	for i, hit := range r.Hits {
		b = appendRef(strconv.AppendInt(b, int64(i+1), 10), ". ", hit.Title, hit.Path, hit.URL)
		if hit.Snippet != "" {
			b = append(append(append(b, "   "...), hit.Snippet...), '\n')
		}
	}
	return b
}

// appendRef writes "<sep><title> — <path> (<url>)\n", the line every
// rendering names a page with.
func appendRef(b []byte, sep, title, path, url string) []byte {
	b = append(append(b, sep...), title...)
	b = append(append(b, " — "...), path...)
	return append(append(append(b, " ("...), url...), ")\n"...)
}

func appendPages(b []byte, r *protocol.PageResult) []byte {
	for _, p := range r.Pages {
		b = append(append(append(b, "# "...), p.Title...), "\npath: "...)
		b = append(append(append(b, p.Path...), "\nurl: "...), p.URL...)
		b = append(append(append(b, "\n\n"...), p.Content...), "\n\n"...)
	}
	for _, e := range r.Errors {
		b = append(append(append(b, "not returned: "...), e.Path...), ": "...)
		b = append(append(append(b, e.Code...), ": "...), e.Message...)
		b = append(b, '\n')
	}
	return b
}

func appendAnswer(b []byte, a *protocol.AnswerResult) []byte {
	if a.NoAnswerReason != nil {
		b = append(append(append(b, "No answer ("...), a.NoAnswerReason.Reason...), "): "...)
		b = append(append(b, a.NoAnswerReason.Message...), '\n')
	} else {
		b = append(append(b, a.Answer...), '\n')
	}
	b = append(append(append(b, "\nconfidence: "...), a.Confidence...), '\n')
	if len(a.Citations) > 0 {
		b = append(b, "\nSources:\n"...)
		for i, c := range a.Citations {
			b = append(strconv.AppendInt(append(b, '['), int64(i+1), 10), ']')
			b = appendRef(b, " ", c.Title, c.Path, c.URL)
		}
	}
	for _, act := range a.Actions {
		if act.Enabled {
			b = append(append(append(b, "\nYou can call "...), act.Type...), " with dedupeKey "...)
			b = append(append(b, act.DedupeKey...), " to report this.\n"...)
		}
	}
	return b
}

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

func appendContext(b []byte, p *protocol.ContextPack) []byte {
	b = strconv.AppendInt(b, int64(len(p.Items)), 10)
	b = strconv.AppendInt(append(b, " passages (about "...), int64(p.TokenEstimate), 10)
	b = strconv.AppendInt(append(b, " of "...), int64(p.MaxTokens), 10)
	b = append(b, " tokens"...)
	if p.Truncated {
		b = append(b, ", truncated"...)
	}
	b = append(b, "):\n"...)
	for i, it := range p.Items {
		b = append(strconv.AppendInt(append(b, "\n["...), int64(i+1), 10), ']')
		b = appendRef(b, " ", it.Title, it.Path, it.URL)
		b = append(append(b, it.Content...), '\n')
	}
	return b
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

func appendFeedback(b []byte, f *feedbackBody) []byte {
	verb := "Merged into existing "
	if f.Created {
		verb = "Created "
	}
	b = append(append(append(b, verb...), f.Record.Type...), " record "...)
	b = append(append(append(b, f.Record.ID...), " (status "...), f.Record.Status...)
	b = strconv.AppendInt(append(b, ", reported "...), int64(f.Record.Count), 10)
	b = append(append(append(b, " times, dedupeKey "...), f.Record.DedupeKey...), ")."...)
	return b
}
