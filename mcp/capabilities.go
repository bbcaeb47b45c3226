package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// undeclared are the client-to-server methods of capabilities the server
// does not declare (newServer declares tools, and resources without
// subscriptions). The SDK answers some of them anyway (an empty
// prompts/list, logging/setLevel), which tells a client the server has a
// capability it never announced; the lifecycle spec wants such methods
// refused, and JSON-RPC's answer for a method the server does not offer is
// -32601 Method not found (README "MCP").
var undeclared = map[string]bool{
	"prompts/list":          true,
	"prompts/get":           true,
	"logging/setLevel":      true,
	"completion/complete":   true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
}

// capabilityMiddleware refuses the methods of undeclared capabilities with
// -32601 before the SDK's own handlers see them. On 2026-07-28 the SDK
// writes that error with HTTP 404, as SEP-2575 requires.
func capabilityMiddleware(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if undeclared[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method " + method + " is not offered: the server does not declare its capability"}
		}
		return next(ctx, method, req)
	}
}
