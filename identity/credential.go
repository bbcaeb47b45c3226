package identity

import (
	"net/http"
	"strings"
)

// HeaderAuthorization carries a bearer token (an agent JWT or an SSO JWT).
const HeaderAuthorization = "Authorization"

// Kinds of credential a request can carry (Presented.Kind).
const (
	PresentedNone   = ""        // no credential header at all
	PresentedBearer = "bearer"  // Authorization: Bearer <token>
	PresentedAPIKey = "api_key" // X-Agent-Api-Key: <key>
)

// Presented is the one credential a request carries, not yet checked.
type Presented struct {
	Kind  string // PresentedNone, PresentedBearer or PresentedAPIKey
	Value string // the token or key, trimmed; "" for PresentedNone
}

// msgOneCredential names the rule a request with two credentials breaks.
const msgOneCredential = "one credential per call: send a single Authorization or a single " +
	HeaderAPIKey + " header, not both and not either twice"

// msgEmptyCredential refuses a credential header sent without a value.
const msgEmptyCredential = "credential header is empty: send a credential or leave the header out"

// ReadCredential says which credential r carries. It is the only reader of
// credential headers: the HTTP routes (Authenticator) and MCP (its
// authentication and its 401 challenge) all ask it, so the doors cannot
// disagree about what a request presented.
//
// The rules (docs/security.md "Authentication"):
//   - One credential per call. Authorization and X-Agent-Api-Key together,
//     or either header twice, is refused: proxies and WAFs disagree on which
//     copy wins, and a gate that picked one would let a bad credential ride
//     along a good one unchecked.
//   - A header that is present counts, even with an empty value: an empty
//     Authorization or X-Agent-Api-Key is a refused credential, never "no
//     credential" (which in public-read would make the caller anonymous).
//   - Authorization must use the Bearer scheme (case-insensitive, RFC 9110
//     §11.1) with a token after it.
//
// X-Session-Token is not a credential here: it binds a turn to a session
// the caller's own credential (or anonymity) already owns, and is read by
// the session routes with SingleHeader.
//
// The error, when there is one, is unauthorized and never echoes the
// credential; PresentedNone with a nil error means no credential header.
func ReadCredential(r *http.Request) (Presented, error) {
	auth := r.Header.Values(HeaderAuthorization)
	keys := r.Header.Values(HeaderAPIKey)
	switch {
	case len(auth)+len(keys) > 1:
		return Presented{}, unauthorized(msgOneCredential)
	case len(keys) == 1:
		return apiKeyPresented(keys[0])
	case len(auth) == 1:
		return bearerPresented(auth[0])
	}
	return Presented{}, nil
}

func apiKeyPresented(value string) (Presented, error) {
	key := strings.TrimSpace(value)
	if key == "" {
		return Presented{}, unauthorized(msgEmptyCredential)
	}
	return Presented{Kind: PresentedAPIKey, Value: key}, nil
}

func bearerPresented(value string) (Presented, error) {
	header := strings.TrimSpace(value)
	if header == "" {
		return Presented{}, unauthorized(msgEmptyCredential)
	}
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return Presented{}, unauthorized(msgUnsupportedScheme)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return Presented{}, unauthorized(msgTokenMalformed)
	}
	return Presented{Kind: PresentedBearer, Value: token}, nil
}

// PresentsCredential reports whether r carries any credential header, even
// one ReadCredential refuses (empty, repeated, another scheme): MCP's 401
// challenge adds error="invalid_token" only then (RFC 6750 §3.1).
func PresentsCredential(r *http.Request) bool {
	c, err := ReadCredential(r)
	return err != nil || c.Kind != PresentedNone
}
