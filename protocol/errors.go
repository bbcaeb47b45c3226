// Package protocol holds the wire types of the Answer API & Agent Access
// protocol and its error contract (docs/protocol.md).
// Besides the standard library it depends only on the strict JSON decoder
// (go-json-experiment/json), so every other package can speak the same types.
package protocol

import (
	"errors"
	"net/http"
)

// Code is a protocol error code (docs/protocol.md, Errors) as it appears in
// the error envelope and in audit records. The set is closed: metrics label
// by it.
type Code string

// Protocol error codes: the specification's, plus the transport and
// dependency codes the gate adds (docs/protocol.md, Errors).
const (
	CodeInvalidRequest     Code = "invalid_request"
	CodeUnauthorized       Code = "unauthorized"
	CodeForbiddenTool      Code = "forbidden_tool"
	CodeForbiddenScope     Code = "forbidden_scope"
	CodeDatasetNotAllowed  Code = "dataset_not_allowed"
	CodeSessionForbidden   Code = "session_forbidden"
	CodeSessionExpired     Code = "session_expired"
	CodeRAGFlowUnavailable Code = "ragflow_unavailable"
	CodeSearchUnavailable  Code = "search_unavailable"
	CodeIdempotency        Code = "idempotency_conflict"
	CodeNoAnswer           Code = "no_answer"
	CodeNotFound           Code = "not_found"
	CodeMethodNotAllowed   Code = "method_not_allowed"
	CodePayloadTooLarge    Code = "payload_too_large"
	CodeRateLimited        Code = "rate_limited"
	CodePolicyUnavailable  Code = "policy_unavailable"
	// CodeSessionStoreUnavailable: the shared session store (Redis) did
	// not answer; the session routes answer 503 until it does, and the
	// caller may retry. Not in the specification's list, whose codes all name a cause
	// the caller can act on; this one names the dependency like
	// ragflow_unavailable does.
	CodeSessionStoreUnavailable Code = "session_store_unavailable"
	// CodeFeedbackStoreUnavailable: the shared feedback store (PostgreSQL)
	// did not answer; nothing was recorded, and a retry with the same
	// idempotencyKey is safe.
	CodeFeedbackStoreUnavailable Code = "feedback_store_unavailable"
	// CodeRateLimitUnavailable: the shared rate-limit store (Redis) did
	// not answer, so the call's budget is unknown; it is refused rather
	// than run unlimited.
	CodeRateLimitUnavailable Code = "rate_limit_unavailable"
	// CodeAuditUnavailable: the audit file is in the sync mode and the
	// call's record did not land (its batch failed, or did not land within
	// the sync wait), so the answer is not given: nothing is acknowledged
	// that the file lacks. The call may have run; a retry is a new call.
	CodeAuditUnavailable Code = "audit_unavailable"
	CodeInternal         Code = "internal"
)

// Error is a protocol error: a code, a message that helps the caller fix the
// request, and the HTTP status it travels with. Messages never carry secrets,
// other callers' grants or backend internals.
type Error struct {
	Code    Code
	Status  int
	Message string
	// Header holds further response headers the error travels with: a
	// rate_limited error's Retry-After, RateLimit and RateLimit-Policy
	// (quota.Policy.Refusal).
	Header http.Header
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf-style constructors keep call sites short and the status mapping in
// one place.

// NewError builds an Error with the status docs/protocol.md (Errors) assigns
// to code.
func NewError(code Code, message string) *Error {
	return &Error{Code: code, Status: StatusFor(code), Message: message}
}

// WithStatus returns a copy of e carrying status (e.g. 502 for a backend that
// answered garbage instead of being unreachable).
func (e *Error) WithStatus(status int) *Error {
	c := *e
	c.Status = status
	return &c
}

// StatusFor maps a code to its HTTP status (docs/protocol.md, Errors).
func StatusFor(code Code) int {
	switch code {
	case CodeInvalidRequest:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case CodeForbiddenTool, CodeForbiddenScope, CodeDatasetNotAllowed, CodeSessionForbidden:
		return http.StatusForbidden
	case CodeSessionExpired:
		return http.StatusGone
	case CodeRAGFlowUnavailable, CodeSearchUnavailable, CodePolicyUnavailable, CodeSessionStoreUnavailable, CodeFeedbackStoreUnavailable,
		CodeRateLimitUnavailable, CodeAuditUnavailable:
		return http.StatusServiceUnavailable
	case CodeIdempotency:
		return http.StatusConflict
	case CodeNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeRateLimited:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// AsError extracts a protocol Error from err. Anything that is not one is
// reported as an internal error with a generic message, so no internal detail
// leaks to callers.
func AsError(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return NewError(CodeInternal, "internal error")
}

// ErrorBody is the JSON error envelope: {"error":{"code","message","requestId"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody.
type ErrorDetail struct {
	Code      Code   `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
}
