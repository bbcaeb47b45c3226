package meili

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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

// transportError classifies a failure before or while reading a response.
func transportError(err error) *Error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Kind: Timeout, Detail: "no answer within the deadline"}
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Kind: Unreachable, Detail: "call canceled"}
	}
	// url.Error repeats method and URL; the cause is enough.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &Error{Kind: Unreachable, Detail: err.Error()}
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

const maxDetailBytes = 300

// scrub makes a Detail safe and short for a log line: secrets replaced,
// control characters (Meilisearch filter errors contain newlines) turned
// into spaces, and the length bounded.
func scrub(detail string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			detail = strings.ReplaceAll(detail, s, "[redacted]")
		}
	}
	detail = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, detail)
	if len(detail) > maxDetailBytes {
		cut := maxDetailBytes
		for cut > 0 && !utf8.RuneStart(detail[cut]) {
			cut--
		}
		detail = detail[:cut] + "…"
	}
	return detail
}
