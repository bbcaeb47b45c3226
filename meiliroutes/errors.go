package meiliroutes

import (
	"errors"
	"net/http"

	"github.com/wikigate/wikigate/backend"
	"github.com/wikigate/wikigate/protocol"
)

// meiliErrorLink is the link of every error on the Meilisearch-compatible
// routes: the docs section that says what they accept.
const meiliErrorLink = "https://github.com/wikigate/wikigate/blob/main/docs/docs-sites.md#search-boxes"

// meiliErrorBody is Meilisearch's error shape, the one backend.MeiliError
// defines: its clients (meilisearch-js's MeiliSearchApiError,
// instant-meilisearch) read message, code, type and link, not the
// protocol's envelope. A type of its own only so that the OpenAPI document
// names the routes' error schema as before.
type meiliErrorBody backend.MeiliError

// meiliCodedError is a protocol error (audited as usual) that Meilisearch
// calls by its own code, such as index_not_found or missing_index_uid.
type meiliCodedError struct {
	pe   *protocol.Error
	code string
}

func (e meiliCodedError) Error() string { return e.pe.Error() }
func (e meiliCodedError) Unwrap() error { return e.pe }

func meiliCoded(err error, code string) error {
	return meiliCodedError{pe: protocol.AsError(err), code: code}
}

// meiliCode is the code a Meilisearch client sees: Meilisearch's own where
// one means the same, the protocol's otherwise.
func meiliCode(err error, pe *protocol.Error) string {
	var mc meiliCodedError
	if errors.As(err, &mc) {
		return mc.code
	}
	switch pe.Code {
	case protocol.CodeInvalidRequest:
		return "bad_request"
	case protocol.CodeUnauthorized:
		return "invalid_api_key"
	case protocol.CodePayloadTooLarge:
		return "payload_too_large"
	}
	return string(pe.Code)
}

// meiliType is Meilisearch's error type for a status.
func meiliType(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "auth"
	case status == http.StatusTooManyRequests || status >= 500:
		return "system"
	}
	return "invalid_request"
}

// errorBody is a refusal as a Meilisearch client reads it; the gateway
// sends it with the protocol's status and headers.
func errorBody(err error, pe *protocol.Error) any {
	return meiliErrorBody{Message: pe.Message, Code: meiliCode(err, pe), Type: meiliType(pe.Status), Link: meiliErrorLink}
}

// invalid is the protocol's invalid_request (400) with msg.
func invalid(msg string) error { return protocol.NewError(protocol.CodeInvalidRequest, msg) }
