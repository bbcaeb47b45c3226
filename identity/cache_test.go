package identity

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestCacheNeverServesPastExp(t *testing.T) {
	clock := &testClock{now: t0}
	cfg := hmacAgentsConfig()
	cfg.Now = clock.Now
	a := newAuthenticator(t, cfg)
	claims := claimsAt(t0)
	claims["exp"] = t0.Add(time.Minute).Unix()
	token := sign(t, jwt.SigningMethodHS256, secretA, "k1", claims)
	agent := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}

	steps := []struct {
		name   string
		at     time.Time
		want   string
		cached bool // whether the cache holds the token afterwards
	}{
		{"first use verifies and caches", t0, "", true},
		{"second use is a cache hit", t0.Add(30 * time.Second), "", true},
		{"past exp within leeway: verified again, not cached", t0.Add(time.Minute + 10*time.Second), "", false},
		{"past exp and leeway: expired", t0.Add(time.Minute + DefaultLeeway + time.Second), msgTokenExpired, false},
	}
	for _, step := range steps {
		clock.Set(step.at)
		p, err := a.AuthenticateAgent(requestWith(bearer(token)))
		t.Run(step.name, func(t *testing.T) {
			checkResult(t, p, err, agent, step.want, token)
			_, hit := a.cache.get(tokenCacheKey(TypeAgent, token), step.at)
			if hit != step.cached {
				t.Fatalf("cache holds token = %v, want %v", hit, step.cached)
			}
		})
	}
}

// The cache is keyed by a hash: nothing in it may equal the token.
func TestCacheKeyIsNotTheToken(t *testing.T) {
	token := sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))
	key := tokenCacheKey(TypeAgent, token)
	if key == token || len(key) != 32 {
		t.Fatalf("cache key is not a sha256 digest (len %d)", len(key))
	}
	if tokenCacheKey(TypeHuman, token) == key {
		t.Fatal("agent and human cache keys collide")
	}
}

func TestCacheDisabledAndCloseTwice(t *testing.T) {
	cfg := hmacAgentsConfig()
	cfg.CacheSize = -1
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	token := sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))
	for range 2 {
		if _, err := a.AuthenticateAgent(requestWith(bearer(token))); err != nil {
			t.Fatalf("AuthenticateAgent without cache: %v", err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}
