package gateway

import (
	"errors"
	"net/http"

	"github.com/wikigate/wikigate/protocol"
)

// meiliErrorLink is the link of every error on the Meilisearch-compatible
// routes: the README section that says what they accept.
const meiliErrorLink = "https://github.com/wikigate/wikigate#peoples-search-and-feedback"

// meiliErrorBody is Meilisearch's error shape (docs/backends.md, "Meilisearch
// wire details"): its clients (meilisearch-js's MeiliSearchApiError,
// instant-meilisearch) read message, code, type and link, not the protocol's
// envelope.
type meiliErrorBody struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Type    string `json:"type"`
	Link    string `json:"link"`
}

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

// writeMeiliOutcome is writeOutcome for the Meilisearch-compatible routes:
// the same statuses and headers, errors in Meilisearch's shape.
func writeMeiliOutcome(w http.ResponseWriter, r *http.Request, reqID string, out any, err error, pe *protocol.Error) {
	if pe == nil {
		writeOK(w, out)
		return
	}
	if errors.As(err, new(refusedBeforeBody)) && r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
	writeMeiliError(w, err, pe)
}

func writeMeiliError(w http.ResponseWriter, err error, pe *protocol.Error) {
	switch pe.Code {
	case protocol.CodeMethodNotAllowed:
		w.Header().Set("Allow", http.MethodPost)
	case protocol.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="wikigate"`)
	}
	copyHeader(w.Header(), pe.Header)
	writeJSON(w, pe.Status, meiliErrorBody{Message: pe.Message, Code: meiliCode(err, pe), Type: meiliType(pe.Status), Link: meiliErrorLink})
}
