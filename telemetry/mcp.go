package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

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
//
// A tools/call of a known tool is named and attributed as MCPToolCall
// says. method is "" for a request refused before its message was read
// (a bad credential on a revision that sends no Mcp-Method header): the
// span has no mcp.method.name and its name is "", for the caller to name.
func MCPRequest(method, target, sessionID, rpcID, revision string) (string, []attribute.KeyValue) {
	if method == MethodToolsCall && target != "" {
		name, attrs := MCPToolCall(target, sessionID, rpcID)
		if revision != "" {
			attrs = append(attrs, MCPProtocolVersion.String(revision))
		}
		return name, attrs
	}
	attrs := make([]attribute.KeyValue, 0, 7)
	if method != "" {
		attrs = append(attrs, MCPMethodName.String(method))
	}
	attrs = append(attrs, networkTransport.String(mcpHTTPTransport), networkProtocol.String(mcpNetworkProtocol))
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

// RPCResponseStatusCode is the MCP conventions' rpc.response.status_code:
// the JSON-RPC error code of the response, as a string ("-32601").
const RPCResponseStatusCode = attribute.Key("rpc.response.status_code")

// ErrorTypeToolError is error.type of a tools/call answered with a result
// with isError (a denial, bad arguments, a backend failure): the JSON-RPC
// exchange succeeded and the tool failed, as the MCP conventions name it.
const ErrorTypeToolError = "tool_error"

// MCPOutcome is how an MCP request was answered, as its client read it.
// The zero value is a success.
type MCPOutcome struct {
	// RPCCode is the JSON-RPC error code of an error response, 0 for none.
	RPCCode int
	// ToolError is a tools/call answered with a result with isError.
	ToolError bool
	// Message is the JSON-RPC error's message, or the isError result's
	// text (the protocol code, then its message).
	Message string
}

// EndMCP ends an MCP request's server span with its outcome, as the
// OpenTelemetry MCP conventions ask: a JSON-RPC error response sets
// rpc.response.status_code and error.type to its code ("-32602") and the
// status to Error with its message; a tools/call result with isError sets
// error.type tool_error and the status to Error with the result's text
// (the protocol code, such as policy_denied, is also wikigate.result, as
// on an HTTP call's span). A success sets neither and leaves the status
// unset.
func EndMCP(s Span, o MCPOutcome) {
	if !s.Recording() {
		return
	}
	switch {
	case o.RPCCode != 0:
		code := strconv.Itoa(o.RPCCode)
		s.Set(RPCResponseStatusCode.String(code))
		s.Fail(errors.New(o.Message), code)
	case o.ToolError:
		s.Fail(errors.New(o.Message), ErrorTypeToolError)
	}
	s.End()
}

// StageToolCall names the view a tools/call's gate has of the MCP
// request's span (InMCPRequest).
const StageToolCall = "wikigate.tool_call"

// InMCPRequest is ctx under the server span of the MCP request that
// carried a tools/call (the span in from, the context of that HTTP
// request, which the MCP front started), and a view of that span for the
// call's pipeline: what the call's stages and its end (EndCallAs) record
// goes on the request's span, but only the front ends it, with the
// outcome its client was sent (EndMCP). One MCP request is one span.
func InMCPRequest(ctx, from context.Context) (context.Context, Span) {
	ctx = UnderRequest(ctx, from)
	return Stage(ctx, StageToolCall)
}
