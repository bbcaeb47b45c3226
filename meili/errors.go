package meili

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

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

// Error is a failed call. The gate logs Kind, HTTPStatus, MeiliCode and
// Detail (which never hold keys or tokens) and answers the caller with
// ProtocolError, which says nothing about the backend's internals.
type Error struct {
	Kind       ErrorKind
	HTTPStatus int    // 0 when no response arrived
	MeiliCode  string // Meilisearch's error code, e.g. "invalid_api_key"
	Detail     string
	// RetryAfter is the backend's Retry-After (Meilisearch sends 10s with
	// 503 too_many_search_requests); 0 when absent.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	msg := "meili: " + e.Kind.String()
	if e.HTTPStatus != 0 {
		msg += " (HTTP " + strconv.Itoa(e.HTTPStatus) + ")"
	}
	if e.MeiliCode != "" {
		msg += " " + e.MeiliCode
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// ProtocolError is what the caller sees: search_unavailable, 503, or 502
// when the backend answered garbage (docs/protocol.md, Errors).
func (e *Error) ProtocolError() *protocol.Error {
	return e.Kind.Protocol(protocol.CodeSearchUnavailable, "search backend")
}

// transportError classifies a failure before or while reading a response
// of a call under ctx (backend.TransportKind).
func transportError(ctx context.Context, err error) *Error {
	return &Error{Kind: backend.TransportKind(ctx, err), Detail: backend.TransportDetail(err)}
}

// statusError classifies a non-2xx answer: with a Meilisearch error body
// (backend.MeiliError) it was Rejected, anything else (a proxy's HTML page)
// is a BadResponse.
func statusError(status int, header http.Header, body []byte) *Error {
	e := &Error{HTTPStatus: status, RetryAfter: backend.RetryAfter(header)}
	var eb backend.MeiliError
	if json.Unmarshal(body, &eb) == nil && eb.Code != "" {
		e.Kind, e.MeiliCode, e.Detail = Rejected, eb.Code, eb.Message
		return e
	}
	e.Kind = BadResponse
	e.Detail = "error status without a Meilisearch error body"
	if ct := header.Get("Content-Type"); ct != "" {
		e.Detail += " (" + ct + ")"
	}
	return e
}

func badResponse(status int, format string, args ...any) *Error {
	return &Error{Kind: BadResponse, HTTPStatus: status, Detail: fmt.Sprintf(format, args...)}
}
