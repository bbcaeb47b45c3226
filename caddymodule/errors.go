package caddymodule

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/wikigate/wikigate/protocol"
)

func init() {
	caddy.RegisterModule(new(ErrorHandler))
	httpcaddyfile.RegisterHandlerDirective("wikigate_error", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next() // directive name
		if h.NextArg() || h.NextBlock(0) {
			return nil, h.ArgErr()
		}
		return new(ErrorHandler), nil
	})
	// Inside handle_errors it is the terminal handler, where a proxy would be.
	httpcaddyfile.RegisterDirectiveOrder("wikigate_error", httpcaddyfile.Before, "reverse_proxy")
}

// ErrorHandler answers, inside `handle_errors`, the errors Caddy's HTTP
// layer raises before the gate runs (an invalid Host, a method over 32
// bytes, or an error from a handler an operator put in front of the gate)
// with the protocol's envelope, so a caller never has to parse anything
// else. Errors Go's net/http writes itself (431, 400 for a malformed
// request line, 501, 505) never reach a handler; see docs/operators.md,
// "Errors Caddy writes before the gate".
type ErrorHandler struct{}

// CaddyModule returns the Caddy module information.
func (*ErrorHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.wikigate_error",
		New: func() caddy.Module { return new(ErrorHandler) },
	}
}

// ServeHTTP writes the envelope for the error in the request's replacer.
// Caddy's error id, when the error has one, becomes the requestId and
// X-Request-Id, so the reply matches the error in Caddy's log.
func (*ErrorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	status, id := http.StatusInternalServerError, ""
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		if s, err := strconv.Atoi(repl.ReplaceAll("{http.error.status_code}", "")); err == nil && s >= 400 && s <= 599 {
			status = s
		}
		id = repl.ReplaceAll("{http.error.id}", "")
	}
	if id == "" { // Caddy's server-level errors carry no id
		id = newErrorID()
	}
	e := protocol.NewError(codeForStatus(status), "the request was refused before the gate read it: "+http.StatusText(status)).WithStatus(status)
	w.Header().Set("X-Request-Id", id)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(protocol.ErrorBody{Error: protocol.ErrorDetail{Code: e.Code, Message: e.Message, RequestID: id}})
}

// newErrorID mints an id of the gate's request id form, so every envelope
// has one a caller can quote.
func newErrorID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// codeForStatus picks the protocol code for an HTTP status: the code of
// that status where the protocol has one, else invalid_request for 4xx
// and internal for 5xx.
func codeForStatus(status int) protocol.Code {
	switch status {
	case http.StatusUnauthorized:
		return protocol.CodeUnauthorized
	case http.StatusNotFound:
		return protocol.CodeNotFound
	case http.StatusMethodNotAllowed:
		return protocol.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return protocol.CodePayloadTooLarge
	case http.StatusTooManyRequests:
		return protocol.CodeRateLimited
	}
	if status < 500 {
		return protocol.CodeInvalidRequest
	}
	return protocol.CodeInternal
}

// Interface guards
var _ caddyhttp.MiddlewareHandler = (*ErrorHandler)(nil)
