// Package identity authenticates callers of the gate (docs/agents.md,
// Credentials): agents by JWT or API key, humans by an SSO JWT or anonymously
// in public-read mode. It also mints development tokens and manages the API
// key file for the CLI.
//
// Identity only says who the caller is. Token claims never grant scope or
// tools; the policy decides that from its own data.
package identity

import "github.com/wikigate/wikigate/protocol"

// Caller types and credential kinds as they appear in Principal and, through
// it, in policy input and audit records.
const (
	TypeAgent = "agent"
	TypeHuman = "human"

	CredentialJWT       = "jwt"
	CredentialAPIKey    = "api_key"
	CredentialSSO       = "sso"
	CredentialAnonymous = "anonymous"
)

// Site modes (docs/docs-sites.md, Who the reader is): whether humans may ask
// without logging in.
const (
	SiteModePublicRead        = "public-read"
	SiteModeAuthenticatedRead = "authenticated-read"
)

// Principal is the authenticated caller of one request.
type Principal struct {
	Type       string   `json:"type"`            // TypeAgent | TypeHuman
	ID         string   `json:"id"`              // agent id or human subject; "" when anonymous
	Roles      []string `json:"roles,omitempty"` // humans only, from the configured roles claim
	Credential string   `json:"credential"`      // CredentialJWT | CredentialAPIKey | CredentialSSO | CredentialAnonymous
	Anonymous  bool     `json:"anonymous"`
	// KeyID is the public prefix of the API key used (CredentialAPIKey
	// only), so audit records say which of an agent's keys made a call.
	KeyID string `json:"keyId,omitempty"`
}

// anonymousHuman is who calls /answer/* without a credential in public-read.
func anonymousHuman() Principal {
	return Principal{Type: TypeHuman, Credential: CredentialAnonymous, Anonymous: true}
}

// Messages of the unauthorized errors. They tell the caller which check
// failed without echoing the credential or revealing key material.
const (
	msgMissingCredential   = "missing credential"
	msgMultipleCredential  = "more than one credential of the same kind"
	msgUnsupportedScheme   = "unsupported authorization scheme, use Bearer"
	msgBearerDisabled      = "bearer tokens are not accepted here"
	msgAPIKeysDisabled     = "api keys are not enabled"
	msgAPIKeysUnavailable  = "api keys are unavailable"
	msgTokenMalformed      = "token is malformed"
	msgTokenTooLarge       = "token is too large"
	msgTokenExpired        = "token expired"
	msgTokenNotYetValid    = "token is not valid yet"
	msgTokenNoExpiry       = "token has no expiry"
	msgTokenLifetime       = "token lifetime exceeds the accepted maximum"
	msgTokenIssuedInFuture = "token is issued in the future"
	msgTokenTimeClaim      = "token time claim is not a number"
	msgTokenCritical       = "token has a critical header this gate does not understand"
	msgTokenNoSubject      = "token has no subject"
	msgTokenSignature      = "token signature is invalid"
	msgTokenAudience       = "token audience is not accepted"
	msgTokenIssuer         = "token issuer is not accepted"
	msgTokenAlgorithm      = "token algorithm is not allowed"
	msgTokenInvalid        = "token is invalid"
	msgUnknownKeyID        = "unknown key id"
	msgKeysUnavailable     = "token signing keys are unavailable"
	msgAPIKeyInvalid       = "api key is invalid"
	msgAPIKeyExpired       = "api key expired"
	msgAPIKeyRevoked       = "api key revoked"
)

// unauthorized builds the only kind of error this package hands to the
// request path.
func unauthorized(msg string) *protocol.Error {
	return protocol.NewError(protocol.CodeUnauthorized, msg)
}
