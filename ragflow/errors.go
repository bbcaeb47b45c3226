package ragflow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wikigate/wikigate/backend"
	"github.com/wikigate/wikigate/protocol"
)

// ErrorKind classifies a failed call (shared with the other backend
// clients, see package backend).
type ErrorKind = backend.ErrorKind

// Error kinds.
const (
	Unreachable = backend.Unreachable
	Timeout     = backend.Timeout
	Rejected    = backend.Rejected
	BadResponse = backend.BadResponse
)

// Error is a failed RAGFlow call. HTTPStatus and Code are the backend's HTTP
// status and envelope code when it answered at all (0 otherwise). Detail is
// for operators' logs: it may quote a short piece of the backend's message,
// never the API key. Callers must not show it to clients; ProtocolError is
// what clients get.
type Error struct {
	Kind       ErrorKind
	HTTPStatus int
	Code       int
	Detail     string
	cause      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("ragflow: ")
	b.WriteString(e.Kind.String())
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, ": http %d", e.HTTPStatus)
	}
	if e.Code != 0 {
		fmt.Fprintf(&b, ": code %d", e.Code)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap exposes the transport error (e.g. context.Canceled) so callers can
// tell a client that went away from a backend that failed.
func (e *Error) Unwrap() error { return e.cause }

// ProtocolError is what the gate's client sees: ragflow_unavailable with
// HTTP 503, or 502 when RAGFlow answered garbage. The messages are generic
// on purpose: nothing from the backend's body, status or configuration
// reaches a caller.
func (e *Error) ProtocolError() *protocol.Error {
	return e.Kind.Protocol(protocol.CodeRAGFlowUnavailable, "the answer backend")
}

// ErrNoDatasets is returned by Retrieve, before any request, when no dataset
// is given: RAGFlow would read an empty list as "every dataset the key can
// see", so an empty decision must never reach it (docs/backends.md, RAGFlow
// traps).
var ErrNoDatasets = errors.New("ragflow: retrieval needs at least one dataset id")

// backendDetail cleans a backend message for Detail (backend.Detail): the
// API key redacted, one line, bounded.
func (c *Client) backendDetail(msg string) string { return backend.Detail(msg, c.apiKey) }

func badResponse(detail string) *Error {
	return &Error{Kind: BadResponse, Detail: detail}
}
