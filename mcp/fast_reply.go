package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastCall runs a stateless tools/call through the gate, as toolHandler
// does on the SDK path: same arguments, same CallMeta (no session, the
// revision of the request), same rendering and isError results.
func (h *Handler) fastCall(w http.ResponseWriter, r *http.Request, ex *exchange, req *fastRequest) bool {
	p := req.Params
	if p.Name == nil || headerGet(r.Header, headerName) == "" || toolIndex[*p.Name] == nil {
		return false // the SDK refuses these (missing Mcp-Name, unknown tool)
	}
	meta := CallMeta{RequestID: string(ex.msg.ID), Revision: revisionStateless, HTTP: ex.r}
	h.answerCall(w, r, ex, req, meta, true)
	return true
}

// answerCall runs req's tool through the gate and writes its result (or
// the isError result of a denial, a backend failure, or a result that
// would not marshal), built in one pooled buffer and written once.
//
// A call cut short by its client (hang-up, or notifications/cancelled on
// its session) gets no response; a rate-limited one is HTTP 429 with the
// HTTP route's Retry-After and RateLimit headers.
func (h *Handler) answerCall(w http.ResponseWriter, r *http.Request, ex *exchange, req *fastRequest, meta CallMeta, stateless bool) {
	name := *req.Params.Name
	ctx := r.Context()
	if ex.session != nil {
		var done func()
		ctx, done = h.inflight.track(ctx, ex.session.id, req.ID)
		defer done()
	}
	out, err := h.gate.Call(ctx, ex.caller.Principal, name, arguments(json.RawMessage(req.Params.Arguments)), meta)
	if errors.Is(err, ErrClientClosed) {
		writeCancelled(w, r)
		return
	}
	if ref, data := limitRefusal(err); ref != nil {
		ref.id = req.ID
		writeRefusal(w, ref, data)
		return
	}
	var o *output
	if err == nil {
		if o, err = h.buildOutput(out); err == nil {
			defer o.release()
		}
	}
	if err != nil {
		o = errorOutput(err)
		ex.toolFailed(err)
	}
	h.writeCallResult(w, req.ID, o, stateless)
}

// writeCallResult writes the JSON-RPC response carrying o, built in one
// pooled slice. stateless results carry the server's identity in _meta
// and a resultType, as the SDK writes them on 2026-07-28 only.
func (h *Handler) writeCallResult(w http.ResponseWriter, id []byte, o *output, stateless bool) {
	rs := getScratch()
	buf, err := h.appendCallResult(appendResponseStart(rs.b, id, "result"), o, stateless)
	if err != nil {
		rs.release(rs.b)
		writeFast(w, id, "error", mustMarshal(errNoExchange))
		return
	}
	buf = append(buf, '}')
	writeResponse(w, buf)
	rs.release(buf)
}

// errorOutput is the isError result of a failed call, with the parts
// errorResult gives the SDK path.
func errorOutput(err error) *output {
	te, text := errorParts(err)
	return &output{structured: mustJSON(te), text: []byte(text), isError: true}
}

// appendCallResult writes o as the SDK's CallToolResult.MarshalJSON does
// (encoding/json, HTML escaped, fields in its order, resultType last),
// with the text content escaped straight into b (appendJSONString) and
// structuredContent as render marshaled it: the SDK would only compact it,
// and it is compact.
func (h *Handler) appendCallResult(b []byte, o *output, stateless bool) ([]byte, error) {
	if stateless {
		b = append(append(append(b, `{"_meta":`...), h.serverMetaJSON...), `,"content":[{"type":"text","text":`...)
	} else {
		b = append(b, `{"content":[{"type":"text","text":`...)
	}
	b = append(appendJSONString(b, o.text), '}')
	if len(o.links) > 0 {
		links, err := json.Marshal(o.links) // an answer's citations: rare enough for encoding/json
		if err != nil {
			return nil, err
		}
		b = append(append(b, ','), links[1:len(links)-1]...)
	}
	b = append(append(b, `],"structuredContent":`...), o.structured...)
	if o.isError {
		b = append(b, `,"isError":true`...)
	}
	if !stateless {
		return append(b, '}'), nil
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
	rs := getScratch()
	b := append(h.appendListResult(appendResponseStart(rs.b, req.ID, "result"), res), '}')
	writeResponse(w, b)
	rs.release(b)
	return true
}

// appendListResult writes res as the SDK encodes a ListToolsResult, fields
// in its order (resultType first, no nextCursor: the list is never paged).
func (h *Handler) appendListResult(b []byte, res *mcpsdk.ListToolsResult) []byte {
	b = append(append(b, `{"resultType":"complete","_meta":`...), h.serverMetaJSON...)
	b = strconv.AppendInt(append(b, `,"ttlMs":`...), int64(res.TTLMs), 10)
	b = appendJSONString(append(b, `,"cacheScope":`...), []byte(res.CacheScope))
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

// writeFast writes one JSON-RPC response, framed as the SDK's encoder
// frames it, as application/json.
func writeFast(w http.ResponseWriter, id []byte, member string, value []byte) {
	rs := getScratch()
	b := append(append(appendResponseStart(rs.b, id, member), value...), '}')
	writeResponse(w, b)
	rs.release(b)
}

// appendResponseStart opens a JSON-RPC response up to its result or error
// member's value; the caller closes it with '}'.
func appendResponseStart(b, id []byte, member string) []byte {
	b = append(append(append(b, `{"jsonrpc":"2.0","id":`...), id...), `,"`...)
	return append(append(b, member...), `":`...)
}

func writeResponse(w http.ResponseWriter, body []byte) {
	// The three values share one allocation instead of one each (what
	// Header.Set does); each is capped at its length, so an append to one
	// cannot reach the next. The keys are already canonical.
	v := make([]string, 3)
	v[0], v[1] = "application/json", "no-cache, no-transform"
	// With its length declared, a body over net/http's 2 KiB buffer goes
	// out as it is; without, such a body (a search result: ~5 KB) is sent
	// chunked, copied through the buffer in pieces (the profile of run M
	// under load showed ~10% of the gate's CPU in that Write).
	v[2] = strconv.Itoa(len(body))
	h := w.Header()
	h["Content-Type"], h["Cache-Control"], h["Content-Length"] = v[0:1:1], v[1:2:2], v[2:3:3]
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
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
