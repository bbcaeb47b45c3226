package mcp

import (
	"net/http"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// rpcErrorResponse is a JSON-RPC error response. Refusals are written in this shape
// (with the HTTP status that says the same) so an MCP client can show the
// message; data carries the protocol error code when there is one.
type rpcErrorResponse struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Error   rpcErrorBody   `json:"error"`
}

type rpcErrorBody struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *errorData `json:"data,omitempty"`
}

// errorData is the protocol error (docs/protocol.md, "Errors") inside a
// JSON-RPC error.
type errorData struct {
	Code string `json:"code"`
}

func writeRefusal(w http.ResponseWriter, ref *refusal, data *errorData) {
	id := ref.id
	if id == nil {
		id = jsontext.Value("null")
	}
	body, err := json.Marshal(rpcErrorResponse{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{Code: ref.code, Message: ref.message, Data: data}})
	if err != nil {
		http.Error(w, ref.message, ref.status)
		return
	}
	for k, vs := range ref.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(ref.status)
	_, _ = w.Write(body)
}
