package mcp

import "github.com/go-json-experiment/json/jsontext"

// fastRequest is a stateless tools/call or tools/list in the only shape
// the fast path answers. Reading is strict (exact member names, no
// unknown members, no duplicates, valid UTF-8: scanFast), so everything it
// accepts the SDK's lenient decoder reads the same way; anything else (a
// progress token, a log level, a cursor, icons in clientInfo...) fails
// here and the request goes to the SDK, which answers it as it always did.
// The struct tags are the wire names; the tests decode with them
// (decodeFastUnmarshal, the reference scanFast is held to).
type fastRequest struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Method  string         `json:"method"`
	Params  *fastParams    `json:"params"`
}

type fastParams struct {
	Name      *string        `json:"name"`
	Arguments jsontext.Value `json:"arguments,omitzero"`
	Meta      *fastMeta      `json:"_meta"`
}

// fastMeta is the SEP-2575 _meta triple; clientInfo is optional there.
type fastMeta struct {
	ProtocolVersion    string         `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         jsontext.Value `json:"io.modelcontextprotocol/clientInfo,omitzero"`
	ClientCapabilities jsontext.Value `json:"io.modelcontextprotocol/clientCapabilities"`
}

// fastMethods are the methods the fast path answers.
var fastMethods = map[string]bool{"tools/call": true, "tools/list": true}

// decodeFast reads body as a fast-path request, or reports false.
func decodeFast(body []byte) (*fastRequest, bool) {
	req, ok := scanFast(body, true)
	if !ok || !fastMethods[req.Method] || req.Params.Meta == nil {
		return nil, false
	}
	if req.Method == "tools/list" && (req.Params.Name != nil || req.Params.Arguments != nil) {
		return nil, false // not tools/list's members: parseMessage refuses them by name
	}
	m := req.Params.Meta
	if m.ProtocolVersion != revisionStateless || m.ClientCapabilities.Kind() != '{' {
		return nil, false
	}
	return req, simpleID(req.ID)
}

// simpleID admits ids the SDK echoes back byte for byte: an integer in
// canonical form that fits an int64, or a string of printable ASCII that
// needs no escaping. Other ids (1.0, 1e3, "\u00e9") go to the SDK, which
// may normalize them.
func simpleID(id jsontext.Value) bool {
	switch {
	case len(id) == 0:
		return false
	case id[0] == '"':
		for _, c := range id[1 : len(id)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// decodeSessionCall reads body as a tools/call on a 2025-* session in the
// only shape the session fast path answers (serveSessionFast): the strict
// reading of decodeFast, params with name and arguments and nothing else
// (no _meta: a progress token goes to the SDK, which sends progress).
func decodeSessionCall(body []byte) (*fastRequest, bool) {
	req, ok := scanFast(body, false)
	if !ok || req.Method != "tools/call" || req.Params.Meta != nil || req.Params.Name == nil {
		return nil, false
	}
	return req, simpleID(req.ID)
}

// message is req as the front routes and checks it: what parseMessage
// would have read from the same body.
func (req *fastRequest) message() *message {
	m := &message{Method: req.Method, ID: req.ID, fast: req}
	if req.Params.Meta != nil {
		m.MetaVersion = req.Params.Meta.ProtocolVersion
	}
	if req.Params.Name != nil {
		m.Name = *req.Params.Name
	}
	return m
}
