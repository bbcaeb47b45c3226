package devmeili

import (
	"fmt"
	"net/http"

	"github.com/wikigate/wikigate/backend"
)

// apiError is a Meilisearch error response: the body is the engine's
// (backend.MeiliError, docs/backends.md, Meilisearch wire details: Errors)
// and the status follows from the code, so clients written against the real
// engine parse our errors unchanged.
type apiError struct {
	status int
	backend.MeiliError
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// codeStatus maps the error codes this server emits to their HTTP status and
// error type, as in the engine's make_error_codes! table.
var codeStatus = map[string]struct {
	status int
	kind   string
}{
	"missing_authorization_header": {http.StatusUnauthorized, "auth"},
	"invalid_api_key":              {http.StatusForbidden, "auth"},
	"index_not_found":              {http.StatusNotFound, "invalid_request"},
	"document_not_found":           {http.StatusNotFound, "invalid_request"},
	"missing_content_type":         {http.StatusUnsupportedMediaType, "invalid_request"},
	"invalid_content_type":         {http.StatusUnsupportedMediaType, "invalid_request"},
	"payload_too_large":            {http.StatusRequestEntityTooLarge, "invalid_request"},
	"internal":                     {http.StatusInternalServerError, "internal"},
}

// newError builds the error for code; codes not in codeStatus are 400
// invalid_request, which covers bad_request, malformed_payload and every
// invalid_search_* / invalid_document_* code.
func newError(code, format string, args ...any) *apiError {
	status, kind := http.StatusBadRequest, "invalid_request"
	if cs, ok := codeStatus[code]; ok {
		status, kind = cs.status, cs.kind
	}
	return &apiError{status: status, MeiliError: backend.MeiliError{
		Message: fmt.Sprintf(format, args...),
		Code:    code,
		Type:    kind,
		Link:    "https://docs.meilisearch.com/errors#" + code,
	}}
}

func errInvalidAPIKey() *apiError {
	return newError("invalid_api_key", "The provided API key is invalid.")
}

func errMissingAuthorization() *apiError {
	return newError("missing_authorization_header",
		"The Authorization header is missing. It must use the bearer authorization method.")
}

func errIndexNotFound(uid string) *apiError {
	return newError("index_not_found", "Index `%s` not found.", uid)
}

func errInvalidIndexUID(uid string) *apiError {
	return newError("invalid_index_uid",
		"`%s` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes.", uid)
}
