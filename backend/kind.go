// Package backend holds what the backend clients share: the gate's (meili,
// ragflow) transport, request id and how a failed call is classified, and
// with the loaders (ingest) how a backend's Retry-After is read. The gate maps a kind to its
// protocol error the same way for every backend: unavailable (503) for
// Unreachable, Timeout and Rejected; a bad gateway (502) for BadResponse.
package backend

import (
	"context"
	"errors"

	"github.com/wikigate/wikigate/protocol"
)

// ErrorKind classifies a failed backend call.
type ErrorKind int

// Error kinds.
const (
	// Unreachable: the connection failed (refused, reset, DNS) or the
	// caller's context ended before an answer. When it ended because the
	// caller hung up (ClientClosed), the gateway records a client cancel,
	// not this kind's 503.
	Unreachable ErrorKind = iota + 1
	// Timeout: the per-call deadline passed.
	Timeout
	// Rejected: the backend answered with an error of its own contract.
	Rejected
	// BadResponse: the body is not the backend's contract (HTML, invalid
	// JSON, the wrong shape, cut short, or too big).
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
		return "bad_response"
	default:
		return "unknown"
	}
}

// Status is the HTTP status the gate answers for a failure of this kind.
func (k ErrorKind) Status() int {
	if k == BadResponse {
		return 502
	}
	return 503
}

// Protocol is the protocol error a caller gets for a failure of kind k:
// code with a generic message (nothing from the backend's body, status or
// configuration), at Status().
func (k ErrorKind) Protocol(code protocol.Code, what string) *protocol.Error {
	if k == BadResponse {
		return protocol.NewError(code, what+" returned an invalid response").WithStatus(k.Status())
	}
	return protocol.NewError(code, what+" is unavailable").WithStatus(k.Status())
}

// ClientClosed reports whether ctx, a call's request context, was canceled:
// the caller hung up (the gate's own deadlines are set on contexts below
// it and end with DeadlineExceeded there). Whatever failed after that
// failed because the call was cut short, not because a backend or the
// policy did: the call is a client cancel.
func ClientClosed(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled)
}
