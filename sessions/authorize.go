package sessions

import (
	"crypto/subtle"
	"time"
)

// Authorize decides whether caller, presenting token, may use the session
// at now. The token and the owner are checked first and a mismatch of
// either is ErrForbidden, so a non-owner never learns whether the session
// has expired; only then is a session past ExpiresAt ErrExpired.
//
// A named owner must be the same type and id (a human "bob" is not the
// agent "bob"); an anonymous owner is bound by the token, held by an anonymous caller.
func (s *Session) Authorize(token string, caller Owner, now time.Time) error {
	if !s.tokenMatches(token) || !s.ownedBy(caller) {
		return ErrForbidden
	}
	if !now.Before(s.ExpiresAt) {
		return ErrExpired
	}
	return nil
}

// tokenMatches compares hashes in constant time, so response timing says
// nothing about how much of a guessed token was right.
func (s *Session) tokenMatches(token string) bool {
	if token == "" || s.TokenHash == "" {
		return false
	}
	got := hashToken(token)
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.TokenHash)) == 1
}

// ownedBy: a named session belongs to its caller (type and id); an
// anonymous one to anonymous callers holding its token (a signed-in caller
// or an agent does not take over an anonymous visitor's session).
func (s *Session) ownedBy(caller Owner) bool {
	if s.Owner.Anonymous {
		return caller.Anonymous
	}
	return !caller.Anonymous &&
		s.Owner.ID != "" &&
		caller.Type == s.Owner.Type &&
		caller.ID == s.Owner.ID
}
