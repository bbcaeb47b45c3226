package mcp

import (
	"context"
	"encoding/json"
	"errors"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// toolHandler runs one tools/call through the gate. A denial or backend
// failure is a tool result with isError, not a JSON-RPC error, so the model
// sees the protocol code and can change its call (docs/agents.md, "MCP").
func (h *Handler) toolHandler(name string) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		ex := h.exchanges.of(req)
		if ex == nil {
			return nil, errNoExchange
		}
		meta := callMeta(req, ex, progress(ctx, req))
		meta.Admitted = ex.admitted
		out, err := h.gate.Call(ctx, ex.caller.Principal, name, arguments(req.Params.Arguments), meta)
		if err != nil {
			return h.failed(ex, err), nil
		}
		return h.render(out), nil
	}
}

// failed is the answer to a call the gate did not complete. A cancelled
// call gets no response and a rate-limited one HTTP 429 (the exchange's
// writer drops what the SDK writes after either); anything else is an
// isError result.
func (h *Handler) failed(ex *exchange, err error) *mcpsdk.CallToolResult {
	switch ref, data := limitRefusal(err); {
	case errors.Is(err, ErrClientClosed):
		if ex.out != nil {
			ex.out.cancel()
		}
		if ex.session != nil && ex.msg != nil {
			h.events.drop(ex.session.id, ex.msg.ID) // nor replayed to a client that resumes the stream
		}
	case ref != nil && ex.out != nil && ex.out.refuse(ref, data):
		// too late only if the stream started; then the isError result says it
	default:
		ex.toolFailed(err)
	}
	return errorResult(err)
}

// callMeta is what the gate records of a request the SDK hands a handler:
// the session, the JSON-RPC id, the revision and the HTTP request.
func callMeta(req mcpsdk.Request, ex *exchange, progress func(done, total float64, message string)) CallMeta {
	meta := CallMeta{HTTP: ex.r, Progress: progress}
	if ex.msg != nil {
		meta.RequestID = string(ex.msg.ID)
	}
	if ss, ok := req.GetSession().(*mcpsdk.ServerSession); ok {
		meta.SessionID = ss.ID()
		if ip := ss.InitializeParams(); ip != nil {
			meta.Revision = ip.ProtocolVersion
		}
	}
	return meta
}

// arguments gives the gate the JSON object it decodes strictly; a call
// without arguments is an empty body, which the gate refuses with the field
// it misses.
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// progress reports stages to the client when it asked for progress (sent
// a progress token); otherwise the gate gets nil and skips the work.
func progress(ctx context.Context, req *mcpsdk.CallToolRequest) func(done, total float64, message string) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total float64, message string) {
		_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{
			ProgressToken: token, Progress: done, Total: total, Message: message,
		})
	}
}

// toolError is the structuredContent of an isError result.
type toolError struct {
	Error struct {
		Code    protocol.Code `json:"code"`
		Message string        `json:"message"`
	} `json:"error"`
}

// errorResult is the isError result of a failed call on the SDK path
// (errorOutput on the fast path).
func errorResult(err error) *mcpsdk.CallToolResult {
	te, text := errorParts(err)
	return &mcpsdk.CallToolResult{IsError: true, StructuredContent: te, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text}}}
}

// errorParts are an isError result's structuredContent and text: the
// protocol code and message.
func errorParts(err error) (toolError, string) {
	pe := protocol.AsError(err)
	var te toolError
	te.Error.Code, te.Error.Message = pe.Code, pe.Message
	return te, string(pe.Code) + ": " + pe.Message
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
