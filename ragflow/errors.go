package ragflow

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// ErrorKind sorts RAGFlow failures by what the caller should tell its own
// client: the backend could not be reached, it took too long, it refused the
// call, or it answered something that is not its contract.
type ErrorKind int

// Kinds of Error.
const (
	// Unreachable: the connection failed (refused, reset, DNS) or the
	// caller's context ended before an answer.
	Unreachable ErrorKind = iota + 1
	// Timeout: the per-call deadline (Config.Timeout) passed.
	Timeout
	// Rejected: RAGFlow answered with an error: HTTP 4xx/5xx (401 is a
	// misconfigured key), an envelope code != 0 (HTTP 200 included), a G1
	// authentication failure (code 0, data false), an SSE error event or an
	// "**ERROR**" answer.
	Rejected
	// BadResponse: the body is not RAGFlow's contract: HTML, invalid JSON,
	// the wrong shape, a stream cut short, or more than MaxResponseBytes.
	BadResponse
)

func (k ErrorKind) String() string {
	switch k {
	case Unreachable:
		return "unreachable"
	case Timeout:
		return "timeout"
	case Rejected:
		return "rejected"
	case BadResponse:
		return "bad response"
	default:
		return "unknown"
	}
}

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
	if e.Kind == BadResponse {
		return protocol.NewError(protocol.CodeRAGFlowUnavailable,
			"the answer backend returned an invalid response").WithStatus(http.StatusBadGateway)
	}
	return protocol.NewError(protocol.CodeRAGFlowUnavailable, "the answer backend is unavailable")
}

// ErrNoDatasets is returned by Retrieve, before any request, when no dataset
// is given: RAGFlow would read an empty list as "every dataset the key can
// see", so an empty decision must never reach it (DESIGN §5).
var ErrNoDatasets = errors.New("ragflow: retrieval needs at least one dataset id")

// maxDetailRunes bounds how much of a backend message goes into Detail.
const maxDetailRunes = 200

// backendDetail cleans a backend message for Detail: the API key is
// redacted in case a proxy echoed a header back, control characters are
// dropped so a log line stays one line, and the length is bounded.
func (c *Client) backendDetail(msg string) string {
	if c.apiKey != "" {
		msg = strings.ReplaceAll(msg, c.apiKey, "[redacted]")
	}
	msg = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, msg)
	if utf8.RuneCountInString(msg) > maxDetailRunes {
		msg = string([]rune(msg)[:maxDetailRunes]) + "…"
	}
	return strings.TrimSpace(msg)
}

func badResponse(detail string) *Error {
	return &Error{Kind: BadResponse, Detail: detail}
}
