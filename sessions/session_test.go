package sessions

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

func TestNewMintsIDTokenAndHash(t *testing.T) {
	s, token := newSession(t, alice, Limits{})
	if !validID(s.ID) {
		t.Errorf("ID = %q, want 32 lowercase hex digits", s.ID)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 32 {
		t.Errorf("token %q is not 32 bytes of base64url (err %v)", token, err)
	}
	sum := sha256.Sum256([]byte(token))
	if s.TokenHash != hex.EncodeToString(sum[:]) {
		t.Errorf("TokenHash is not the hex sha256 of the token")
	}
	if strings.Contains(s.TokenHash, token) {
		t.Errorf("session stores the token")
	}
	other, otherToken := newSession(t, alice, Limits{})
	if other.ID == s.ID || otherToken == token {
		t.Errorf("two sessions share an id or a token")
	}
}

func TestNewSetsLimitsTimesAndScope(t *testing.T) {
	requested := protocol.Scope{Projects: []string{"kunora-kgent"}, Version: "main"}
	s, _, err := New(kgent, requested, Limits{MaxTurns: 3}, 10*time.Minute, t0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Limits{MaxTurns: 3, MaxContextTokens: DefaultMaxContextTokens}); s.Limits != want {
		t.Errorf("Limits = %+v, want %+v", s.Limits, want)
	}
	if !s.CreatedAt.Equal(t0) || !s.ExpiresAt.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("CreatedAt/ExpiresAt = %v/%v", s.CreatedAt, s.ExpiresAt)
	}
	requested.Projects[0] = "kunora-ops"
	if s.Scope.Projects[0] != "kunora-kgent" {
		t.Errorf("session scope changed with the request's slice")
	}
	d, _ := newSession(t, alice, Limits{MaxTurns: -1})
	if d.Limits != (Limits{MaxTurns: 8, MaxContextTokens: 12000}) {
		t.Errorf("default Limits = %+v, want 8/12000", d.Limits)
	}
}

func TestNewRefusesBadOwnersAndTTL(t *testing.T) {
	cases := []struct {
		name  string
		owner Owner
		ttl   time.Duration
	}{
		{"unknown type", Owner{Type: "service", ID: "x"}, time.Minute},
		{"named owner without id", Owner{Type: OwnerHuman}, time.Minute},
		{"anonymous agent", Owner{Type: OwnerAgent, Anonymous: true}, time.Minute},
		{"zero ttl", alice, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := New(tc.owner, scope, Limits{}, tc.ttl, t0); err == nil {
				t.Errorf("New succeeded, want an error")
			}
		})
	}
	if _, _, err := New(Owner{Type: OwnerHuman, Anonymous: true}, scope, Limits{}, time.Minute, t0); err != nil {
		t.Errorf("anonymous human: %v", err)
	}
}
