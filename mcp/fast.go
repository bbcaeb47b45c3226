package mcp

import (
	"net/http"
	"strings"
)

// The fast path answers a stateless (2026-07-28) tools/call or tools/list
// in this package instead of the SDK. Through the SDK such a request costs
// hundreds of µs and about 480 KB (a 32 KB buffer per JSON parse, many
// parses per call, the tool's input schema re-read per call, a server
// session and an SSE stream per request: bench/README.md, "What MCP
// costs"), against a budget of 25 µs over the HTTP route (issue 14).
//
// It takes only requests the SDK would serve without refusing anything,
// and otherwise declines, so that every refusal and every other method
// still comes from the SDK:
//   - what the front already checked (Host, Origin, one JSON-RPC message, strict
//     JSON, id type, Mcp-Method/Mcp-Name against the body, authentication);
//   - the SDK's own gates: Mcp-Protocol-Version
//     exactly 2026-07-28, Accept naming JSON and SSE, no Last-Event-ID,
//     Mcp-Method and (tools/call) Mcp-Name present;
//   - the _meta triple: protocolVersion equal to the header, clientInfo and
//     clientCapabilities of the shapes the SDK decodes (decodeFast);
//   - a known tool (an unknown one is the SDK's -32602). The six tools
//     declare no x-mcp-header parameters, so there are no Mcp-Param-*
//     headers to check (TestNoParamHeaders keeps it so);
//   - no progress token: the SDK path sends progress notifications.
//
// The answer is the JSON-RPC message the SDK would write, as
// application/json instead of a one-event SSE stream: the client accepts
// both, and the transport lets the server choose (TestFastPathSaysWhatTheSDKSays).
func (h *Handler) serveFast(w http.ResponseWriter, r *http.Request, ex *exchange) bool {
	req := ex.msg.fast
	if h.noFast || req == nil || !fastHeaders(r) {
		return false
	}
	switch req.Method {
	case "tools/call":
		return h.fastCall(w, r, ex, req)
	case "tools/list":
		return h.fastList(w, r, ex, req)
	}
	return false
}

// fastHeaders holds the request to the SDK transport's checks on a
// stateless POST.
func fastHeaders(r *http.Request) bool {
	h := r.Header
	if v := headerValues(h, headerProtocolVersion); len(v) != 1 || v[0] != revisionStateless ||
		headerGet(h, headerMethod) == "" || len(headerValues(h, headerLastEventID)) > 0 {
		return false
	}
	json, stream := accepts(headerValues(h, headerAccept))
	return json && stream
}

// accepts is the SDK's reading of Accept (streamableAccepts).
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for more := true; more; {
			var raw string
			raw, value, more = strings.Cut(value, ",") // strings.Split without its slice
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}
