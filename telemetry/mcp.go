package telemetry

import (
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
)

// MCP semantic convention names (OpenTelemetry semantic conventions,
// gen-ai MCP spans).
const (
	MCPMethodName      = attribute.Key("mcp.method.name")
	MCPSessionID       = attribute.Key("mcp.session.id")
	JSONRPCRequestID   = attribute.Key("jsonrpc.request.id")
	MethodToolsCall    = "tools/call"
	networkTransport   = attribute.Key("network.transport")
	networkProtocol    = attribute.Key("network.protocol.name")
	mcpHTTPTransport   = "tcp"
	mcpNetworkProtocol = "http"
)

// MCPToolCall names the server span of an MCP tools/call ("tools/call
// ask", as the conventions ask: method then tool) and gives its
// attributes: method, tool, the MCP session (none on a stateless gate)
// and the JSON-RPC request id.
func MCPToolCall(tool, sessionID, rpcID string) (string, []attribute.KeyValue) {
	attrs := []attribute.KeyValue{
		MCPMethodName.String(MethodToolsCall),
		GenAIToolName.String(tool),
		GenAIOperationName.String(OperationExecuteTool),
		networkTransport.String(mcpHTTPTransport),
		networkProtocol.String(mcpNetworkProtocol),
	}
	if sessionID != "" {
		attrs = append(attrs, MCPSessionID.String(sessionID))
	}
	if rpcID != "" {
		attrs = append(attrs, JSONRPCRequestID.String(rpcID))
	}
	return MethodToolsCall + " " + tool, attrs
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// MCPProtocolVersion is the MCP conventions' mcp.protocol.version.
const MCPProtocolVersion = attribute.Key("mcp.protocol.version")

// MCPRequest names the server span of an MCP request other than a
// tools/call (initialize, tools/list, resources/read...) as the
// conventions ask: the method, then its target when it has one (a
// resource's URI, a prompt's name). Its attributes are the method, the
// session (none before initialize answers, nor on a stateless gate), the
// JSON-RPC id, the protocol revision when the request names one, and the
// transport.
func MCPRequest(method, target, sessionID, rpcID, revision string) (string, []attribute.KeyValue) {
	attrs := make([]attribute.KeyValue, 0, 7)
	attrs = append(attrs, MCPMethodName.String(method),
		networkTransport.String(mcpHTTPTransport), networkProtocol.String(mcpNetworkProtocol))
	if sessionID != "" {
		attrs = append(attrs, MCPSessionID.String(sessionID))
	}
	if rpcID != "" {
		attrs = append(attrs, JSONRPCRequestID.String(rpcID))
	}
	if revision != "" {
		attrs = append(attrs, MCPProtocolVersion.String(revision))
	}
	name := method
	switch {
	case target == "":
	case method == "resources/read":
		attrs = append(attrs, attribute.String("mcp.resource.uri", target))
		name += " " + target
	case method == "prompts/get":
		attrs = append(attrs, attribute.String("gen_ai.prompt.name", target))
		name += " " + target
	}
	return name, attrs
}
