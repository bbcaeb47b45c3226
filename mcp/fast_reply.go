package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastCall runs a stateless tools/call through the gate, as toolHandler
// does on the SDK path: same arguments, same CallMeta (no session, the
// revision of the request), same rendering and isError results.
func (h *Handler) fastCall(w http.ResponseWriter, r *http.Request, ex *exchange, req *fastRequest) bool {
	p := req.Params
	if p.Name == nil || r.Header.Get(headerName) == "" || toolIndex[*p.Name] == nil {
		return false // the SDK refuses these (missing Mcp-Name, unknown tool)
	}
	meta := CallMeta{RequestID: string(ex.msg.ID), Revision: revisionStateless, HTTP: ex.r}
	out, err := h.gate.Call(r.Context(), ex.caller.Principal, *p.Name, arguments(json.RawMessage(p.Arguments)), meta)
	res := errorResult(err)
	if err == nil {
		res, _ = h.render(*p.Name, out) // render never fails: a marshal error is an isError result
	}
	b, err := h.callResultJSON(res)
	if err != nil {
		writeFast(w, req.ID, "error", mustMarshal(errNoExchange))
		return true
	}
	writeFast(w, req.ID, "result", b)
	return true
}

// callResultJSON writes res as the SDK's CallToolResult.MarshalJSON does
// (encoding/json, HTML escaped, fields in its order, resultType last),
// without marshaling structuredContent again when render already did: the
// SDK would only compact it, and it is compact.
func (h *Handler) callResultJSON(res *mcpsdk.CallToolResult) ([]byte, error) {
	content, err := contentJSON(res.Content)
	if err != nil {
		return nil, err
	}
	structured, ok := res.StructuredContent.(json.RawMessage)
	if !ok && res.StructuredContent != nil {
		if structured, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, len(h.serverMetaJSON)+len(content)+len(structured)+96)
	b = append(append(append(b, `{"_meta":`...), h.serverMetaJSON...), `,"content":`...)
	b = append(b, content...)
	if structured != nil {
		b = append(append(b, `,"structuredContent":`...), structured...)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, `,"resultType":"complete"}`...), nil
}

// fastList answers a stateless tools/list from the policy (listTools, as
// listMiddleware does), private and cacheable no longer than the policy
// and the credential allow. The tools' definitions never change, so their
// JSON is encoded once (toolJSON) instead of on every list.
func (h *Handler) fastList(w http.ResponseWriter, r *http.Request, ex *exchange, req *fastRequest) bool {
	if req.Params.Name != nil || req.Params.Arguments != nil {
		return false
	}
	res, err := h.listTools(r.Context(), ex)
	if err != nil {
		writeFast(w, req.ID, "error", mustMarshal(err))
		return true
	}
	writeFast(w, req.ID, "result", h.listResultJSON(res))
	return true
}

// listResultJSON writes res as the SDK encodes a ListToolsResult, fields
// in its order (resultType first, no nextCursor: the list is never paged).
func (h *Handler) listResultJSON(res *mcpsdk.ListToolsResult) []byte {
	b := make([]byte, 0, 16<<10)
	b = append(append(b, `{"resultType":"complete","_meta":`...), h.serverMetaJSON...)
	b = append(append(b, `,"ttlMs":`...), strconv.Itoa(res.TTLMs)...)
	b = append(append(b, `,"cacheScope":`...), mustMarshal(res.CacheScope)...)
	b = append(b, `,"tools":[`...)
	for i, t := range res.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, toolJSON[t]...)
	}
	return append(b, "]}"...)
}

// toolJSON is each tool definition as the SDK's encoder writes it.
var toolJSON = func() map[*mcpsdk.Tool][]byte {
	m := make(map[*mcpsdk.Tool][]byte, len(toolObjects))
	for _, t := range toolObjects {
		m[t] = mustMarshal(t)
	}
	return m
}()

// contentJSON is json.Marshal(content), with the common case (one text
// block: every tool but ask) written directly: marshaling the SDK's
// TextContent costs a wire struct and a compaction of the whole text.
func contentJSON(content []mcpsdk.Content) ([]byte, error) {
	if len(content) != 1 {
		return json.Marshal(content)
	}
	t, ok := content[0].(*mcpsdk.TextContent)
	if !ok || t.Meta != nil || t.Annotations != nil {
		return json.Marshal(content)
	}
	text, err := json.Marshal(t.Text) // HTML-escaped, as TextContent.MarshalJSON does
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`[{"type":"text","text":`), text...), `}]`...), nil
}

// writeFast writes one JSON-RPC response, framed as the SDK's encoder
// frames it, as application/json.
func writeFast(w http.ResponseWriter, id []byte, member string, value []byte) {
	var b bytes.Buffer
	b.Grow(len(value) + len(id) + 40)
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"` + member + `":`)
	b.Write(value)
	b.WriteByte('}')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// marshalNoEscape is the SDK's jsonMarshal: encoding/json without HTML
// escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func mustMarshal(v any) []byte {
	b, err := marshalNoEscape(v)
	if err != nil {
		panic(err)
	}
	return b
}

// serverInfoMeta is the _meta the SDK puts on every stateless result
// (SEP-2575: servers identify themselves in each result).
func serverInfoMeta(impl *mcpsdk.Implementation) mcpsdk.Meta {
	return mcpsdk.Meta{"io.modelcontextprotocol/serverInfo": impl}
}
