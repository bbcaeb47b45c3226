package mcp

import "github.com/wikigate/wikigate/protocol"

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes a string with HTML escaping (json.Marshal): the SDK encodes a
// TextContent that way, and the fast path must answer byte for byte what
// the SDK answers (TestAppendJSONStringIsEncodingJSON). Escaping the bytes
// straight into the answer spares marshaling the text into a string of
// its own and copying it again; the writer is the gate's one
// (protocol.AppendJSONString).
func appendJSONString(dst []byte, s []byte) []byte {
	return protocol.AppendJSONString(dst, s, true)
}
