package mcp

import "net/http"

// serveSessionFast answers a tools/call on an open 2025-* session in this
// package instead of the SDK, which costs ~85 us and ~200 KB per call there
// (a 32 KB buffer per JSON parse, a jsonrpc2 dispatch through goroutines,
// an SSE stream per response) against the 25 us budget.
//
// The session has been bound to its owner by the front (bind), so the
// identity check is the same either way. The fast path only takes what the
// SDK would serve without refusing anything, and otherwise declines:
//   - the front's checks (Origin, one strict JSON-RPC message, headers
//     against the body, authentication, the session's owner);
//   - the SDK's: its loopback Host check, Accept naming JSON and SSE, no
//     Last-Event-ID, a session that has been initialized, and
//     Mcp-Protocol-Version exactly the revision the session negotiated;
//   - the message in decodeSessionCall's shape (name and arguments only:
//     no progress token), a simple id and a known tool.
//
// The SDK keeps a session alive while it sees requests; requests answered
// here are not seen there, so the gate keeps the idle timeout itself
// (session.begin/end) and the SDK's is off. The answer is the SDK's
// JSON-RPC message byte for byte (TestSessionFastPathSaysWhatTheSDKSays),
// as application/json, which the client must accept.
func (h *Handler) serveSessionFast(w http.ResponseWriter, r *http.Request, ex *exchange) bool {
	req := ex.msg.fast
	if h.noFast || req == nil || req.Params.Meta != nil || toolIndex[*req.Params.Name] == nil {
		return false
	}
	_, ss := ex.session.snapshot()
	if ss == nil || ex.session.gone() { // gone: evicted after bind, the SDK answers 404
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || !sessionHeaders(r, ip.ProtocolVersion) {
		return false
	}
	meta := CallMeta{SessionID: ex.session.id, RequestID: string(req.ID), Revision: ip.ProtocolVersion, HTTP: ex.r}
	h.answerCall(w, r, ex, req, meta, false)
	return true
}

// sessionHeaders holds a session POST to the SDK transport's checks.
func sessionHeaders(r *http.Request, revision string) bool {
	h := r.Header
	if v := headerValues(h, headerProtocolVersion); len(v) != 1 || v[0] != revision || len(headerValues(h, headerLastEventID)) > 0 {
		return false
	}
	json, stream := accepts(headerValues(h, headerAccept))
	return json && stream
}
