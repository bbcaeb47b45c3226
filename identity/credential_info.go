package identity

import (
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// CredentialInfo is what a front door that keeps state across requests
// (an MCP session) needs to know about an accepted credential beyond who it
// names: when it stops being accepted, and whom a token was issued for.
type CredentialInfo struct {
	// Expires is the token's exp or the API key's expiry; zero when the
	// credential has none (anonymous, a key without expiry).
	Expires time.Time
	// Audience is a token's aud claim; nil for API keys.
	Audience []string
}

// CredentialInfo describes the credential r carried, which AuthenticateAgent
// or AuthenticateAnswer has already accepted as p. It reads the token's
// claims without verifying them again: they were verified for p.
func (a *Authenticator) CredentialInfo(r *http.Request, p Principal) CredentialInfo {
	switch p.Credential {
	case CredentialAPIKey:
		return a.apiKeyInfo(p.KeyID)
	case CredentialJWT, CredentialSSO:
		c, err := ReadCredential(r)
		if err != nil || c.Kind != PresentedBearer {
			return CredentialInfo{}
		}
		return tokenInfo(c.Value)
	}
	return CredentialInfo{}
}

func (a *Authenticator) apiKeyInfo(prefix string) CredentialInfo {
	if a.apiKeys == nil {
		return CredentialInfo{}
	}
	a.apiKeys.mu.Lock()
	rec, found := a.apiKeys.find(prefix)
	a.apiKeys.mu.Unlock()
	if !found || rec.ExpiresAt == nil {
		return CredentialInfo{}
	}
	return CredentialInfo{Expires: *rec.ExpiresAt}
}

func tokenInfo(token string) CredentialInfo {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser(jwt.WithStrictDecoding()).ParseUnverified(token, claims); err != nil {
		return CredentialInfo{}
	}
	var info CredentialInfo
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		info.Expires = exp.Time
	}
	info.Audience, _ = claims.GetAudience()
	return info
}

// CheckAPIKey reports whether the API key with this public prefix would
// still be accepted now (not revoked, not expired, the key file usable), so
// state opened with the key (an MCP session) can end when it is revoked.
// It needs no plaintext: the key was checked when the state was opened.
func (a *Authenticator) CheckAPIKey(prefix string) error {
	if a.apiKeys == nil {
		return unauthorized(msgAPIKeysDisabled)
	}
	s := a.apiKeys
	s.mu.Lock()
	s.refresh(false)
	rec, found := s.find(prefix)
	unavailable := s.loadErr != nil
	s.mu.Unlock()
	switch {
	case unavailable:
		return unauthorized(msgAPIKeysUnavailable)
	case !found:
		return unauthorized(msgAPIKeyInvalid)
	case rec.Revoked:
		return unauthorized(msgAPIKeyRevoked)
	case rec.expired(a.now()):
		return unauthorized(msgAPIKeyExpired)
	}
	return nil
}
