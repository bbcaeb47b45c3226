package sessions

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestAuthorize(t *testing.T) {
	agentSession, agentToken := newSession(t, kgent, Limits{})
	humanSession, humanToken := newSession(t, alice, Limits{})
	anonSession, anonToken := newSession(t, Owner{Type: OwnerHuman, Anonymous: true}, Limits{})
	_, strangerToken := newSession(t, kgent, Limits{})
	live, expired := t0.Add(time.Minute), t0.Add(31*time.Minute)

	cases := []struct {
		name    string
		session *Session
		token   string
		caller  Owner
		now     time.Time
		want    error
	}{
		{"owner with token", agentSession, agentToken, kgent, live, nil},
		{"owner with another session's token", agentSession, strangerToken, kgent, live, ErrForbidden},
		{"owner with empty token", agentSession, "", kgent, live, ErrForbidden},
		{"owner with truncated token", agentSession, agentToken[:20], kgent, live, ErrForbidden},
		{"other agent with token", agentSession, agentToken, Owner{Type: OwnerAgent, ID: "other-bot"}, live, ErrForbidden},
		{"human with agent's id", agentSession, agentToken, Owner{Type: OwnerHuman, ID: "kgent-bot"}, live, ErrForbidden},
		{"agent with human's id", humanSession, humanToken, Owner{Type: OwnerAgent, ID: "alice"}, live, ErrForbidden},
		{"anonymous caller on named session", humanSession, humanToken, Owner{Type: OwnerHuman, ID: "alice", Anonymous: true}, live, ErrForbidden},
		{"human owner with token", humanSession, humanToken, alice, live, nil},
		{"anonymous owner, token alone", anonSession, anonToken, Owner{Type: OwnerHuman, Anonymous: true}, live, nil},
		{"anonymous owner, signed-in caller with the token", anonSession, anonToken, Owner{Type: OwnerHuman, ID: "alice"}, live, ErrForbidden},
		{"anonymous owner, agent with the token", anonSession, anonToken, Owner{Type: OwnerAgent, ID: "kunora-coding-agent"}, live, ErrForbidden},
		{"anonymous owner, wrong token", anonSession, humanToken, Owner{Type: OwnerHuman, Anonymous: true}, live, ErrForbidden},
		{"expired, owner", agentSession, agentToken, kgent, expired, ErrExpired},
		{"expired at the instant of expiry", agentSession, agentToken, kgent, agentSession.ExpiresAt, ErrExpired},
		{"expired, other agent", agentSession, agentToken, Owner{Type: OwnerAgent, ID: "other-bot"}, expired, ErrForbidden},
		{"expired, wrong token", agentSession, strangerToken, kgent, expired, ErrForbidden},
		{"expired, anonymous owner", anonSession, anonToken, Owner{Type: OwnerHuman, Anonymous: true}, expired, ErrExpired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.session.Authorize(tc.token, tc.caller, tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("Authorize = %v, want %v", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), tc.token) && tc.token != "" {
				t.Errorf("error %q carries the token", err)
			}
		})
	}
}

// A session whose owner id is empty (never minted by New, but possibly a
// corrupt record) must not match a caller without an id.
func TestAuthorizeRefusesOwnerWithoutID(t *testing.T) {
	s, token := newSession(t, kgent, Limits{})
	s.Owner.ID = ""
	if err := s.Authorize(token, Owner{Type: OwnerAgent}, t0); !errors.Is(err, ErrForbidden) {
		t.Errorf("Authorize = %v, want ErrForbidden", err)
	}
}
