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
