// Package sessions holds multi-turn answer sessions (docs/protocol.md, "SessionCreated"):
// the AnswerSession model, its authorization and turn trimming, and a
// short-lived per-process store. A session is bound to its owner and to a
// bearer token that is returned once and only stored as a hash, so a
// session id alone never authorizes a turn.
package sessions

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// Owner types.
const (
	OwnerAgent = "agent"
	OwnerHuman = "human"
)

// Default limits (docs/protocol.md, "SessionCreated").
const (
	DefaultMaxTurns         = 8
	DefaultMaxContextTokens = 12000
)

// Errors of Authorize and the store. The gateway maps ErrForbidden to
// session_forbidden and ErrExpired to session_expired.
var (
	ErrNotFound  = errors.New("session not found")
	ErrExpired   = errors.New("session expired")
	ErrForbidden = errors.New("session forbidden")
)

// Owner is who created a session. Anonymous humans have no stable id, so
// their sessions are bound by the session token alone.
type Owner struct {
	Type      string
	ID        string
	Anonymous bool
}

// Limits bound what a session keeps; over them the oldest turns are trimmed.
type Limits struct {
	MaxTurns         int
	MaxContextTokens int
}

// Turn is one question and its answer. Tokens is the turn's share of the
// context budget (EstimateTokens of question and answer when left zero).
type Turn struct {
	Question  string
	Answer    string
	Citations []protocol.Citation
	NoAnswer  bool
	// NoAnswerReason is the no-answer's reason code (docs/protocol.md, AnswerResult, e.g.
	// "no_evidence"), so the session's history can say why; "" when
	// answered, or for a turn stored before it was kept.
	NoAnswerReason string
	At             time.Time
	Tokens         int
}

// Session is an AnswerSession (docs/protocol.md, "SessionCreated"). The token itself is never
// stored, only TokenHash (hex sha256 of the token).
type Session struct {
	ID        string
	TokenHash string
	Owner     Owner
	// Scope is the effective scope decided at creation; follow-ups inherit
	// it and may not widen it.
	Scope protocol.Scope
	Turns []Turn
	// CitationSummary keeps the citations of trimmed turns (docs/protocol.md:
	// old turns are trimmed, what they cited is kept), de-duplicated and bounded.
	CitationSummary []protocol.Citation
	TrimmedTurns    int
	Limits          Limits
	CreatedAt       time.Time
	ExpiresAt       time.Time
}

const (
	idBytes    = 16
	tokenBytes = 32
)

// New mints a session for owner with the decided scope. It returns the
// session and its token; the token is not kept anywhere, so this is the
// only time it can be handed to the caller.
func New(owner Owner, scope protocol.Scope, limits Limits, ttl time.Duration, now time.Time) (*Session, string, error) {
	if err := validateOwner(owner); err != nil {
		return nil, "", err
	}
	if ttl <= 0 {
		return nil, "", errors.New("session ttl must be positive")
	}
	id, err := randomBytes(idBytes)
	if err != nil {
		return nil, "", err
	}
	raw, err := randomBytes(tokenBytes)
	if err != nil {
		return nil, "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	s := &Session{
		ID:        hex.EncodeToString(id),
		TokenHash: hashToken(token),
		Owner:     owner,
		Scope:     scope.Clone(),
		Limits:    limits.withDefaults(),
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
	}
	return s, token, nil
}

// withDefaults fills unset (or nonsensical) limits with the protocol
// defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxTurns <= 0 {
		l.MaxTurns = DefaultMaxTurns
	}
	if l.MaxContextTokens <= 0 {
		l.MaxContextTokens = DefaultMaxContextTokens
	}
	return l
}

// validateOwner refuses owners that could never be matched safely: a named
// owner without an id would match every caller without one.
func validateOwner(o Owner) error {
	switch {
	case o.Type != OwnerAgent && o.Type != OwnerHuman:
		return errors.New("session owner type must be agent or human")
	case o.Anonymous && o.Type != OwnerHuman:
		return errors.New("only human session owners can be anonymous")
	case !o.Anonymous && o.ID == "":
		return errors.New("session owner id is required")
	}
	return nil
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, errors.New("session: reading random bytes failed")
	}
	return b, nil
}

// hashToken is what a session stores in place of its token.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
