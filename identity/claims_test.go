package identity

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestTokenTimeClaimsAndCrit covers what a token's own claims and header
// may not do (issue 8 item 9): be issued in the future, carry a time that is
// not a number, live longer than max_ttl, or demand an extension we do not
// understand.
func TestTokenTimeClaimsAndCrit(t *testing.T) {
	agent := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	claims := func(change func(c jwt.MapClaims)) jwt.MapClaims {
		c := claimsAt(t0)
		change(c)
		return c
	}
	token := func(change func(c jwt.MapClaims)) string {
		return sign(t, jwt.SigningMethodHS256, secretA, "k1", claims(change))
	}
	withHeader := func(name string, value any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claimsAt(t0))
		tok.Header["kid"] = "k1"
		tok.Header[name] = value
		s, err := tok.SignedString(secretA)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	shortTTL := hmacAgentsConfig()
	shortTTL.Agents.MaxTTL = time.Hour
	centuries := t0.AddDate(300, 0, 0).Unix()

	tests := []struct {
		name  string
		cfg   *Config
		token string
		want  string
	}{
		{"iat in the future", nil, token(func(c jwt.MapClaims) { c["iat"] = t0.Add(time.Hour).Unix() }), msgTokenIssuedInFuture},
		{"iat just past the leeway", nil, token(func(c jwt.MapClaims) { c["iat"] = t0.Add(DefaultLeeway + time.Second).Unix() }), msgTokenIssuedInFuture},
		{"iat within the leeway", nil, token(func(c jwt.MapClaims) { c["iat"] = t0.Add(10 * time.Second).Unix() }), ""},
		{"iat a string", nil, token(func(c jwt.MapClaims) { c["iat"] = "yesterday" }), msgTokenTimeClaim},
		{"iat a numeric string", nil, token(func(c jwt.MapClaims) { c["iat"] = "1772618400" }), msgTokenTimeClaim},
		{"iat an object", nil, token(func(c jwt.MapClaims) { c["iat"] = map[string]any{"s": 1} }), msgTokenTimeClaim},
		{"no iat, exp within max ttl", nil, token(func(c jwt.MapClaims) { delete(c, "iat"); c["exp"] = t0.Add(23 * time.Hour).Unix() }), ""},
		{"exp centuries away", nil, token(func(c jwt.MapClaims) { c["exp"] = centuries }), msgTokenLifetime},
		{"exp centuries away, no iat", nil, token(func(c jwt.MapClaims) { delete(c, "iat"); c["exp"] = centuries }), msgTokenLifetime},
		{"exp absurdly far", nil, token(func(c jwt.MapClaims) { c["exp"] = 1e18 }), msgTokenLifetime},
		{"lifetime exactly 24h", nil, token(func(c jwt.MapClaims) { c["exp"] = t0.Add(DefaultMaxTTL).Unix() }), ""},
		{"lifetime 24h and a second", nil, token(func(c jwt.MapClaims) { c["exp"] = t0.Add(DefaultMaxTTL + time.Second).Unix() }), msgTokenLifetime},
		{"old iat widens the lifetime", nil, token(func(c jwt.MapClaims) { c["iat"] = t0.Add(-30 * time.Hour).Unix() }), msgTokenLifetime},
		{"configured max ttl", &shortTTL, token(func(c jwt.MapClaims) { c["exp"] = t0.Add(2 * time.Hour).Unix() }), msgTokenLifetime},
		{"within configured max ttl", &shortTTL, token(func(c jwt.MapClaims) { c["exp"] = t0.Add(time.Hour).Unix() }), ""},
		{"unknown crit header", nil, withHeader("crit", []string{"exp-ext"}), msgTokenCritical},
		{"empty crit header", nil, withHeader("crit", []string{}), msgTokenCritical},
		{"crit naming b64", nil, withHeader("crit", []string{"b64"}), msgTokenCritical},
		{"other unknown header is fine", nil, withHeader("x-note", "hello"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := hmacAgentsConfig()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			a := newAuthenticator(t, cfg)
			p, err := a.AuthenticateAgent(requestWith(bearer(tc.token)))
			checkResult(t, p, err, agent, tc.want, tc.token)
		})
	}
}

// TestHumanTokensHaveAMaxTTL: SSO tokens get the same lifetime bound,
// configured on their own issuer.
func TestHumanTokensHaveAMaxTTL(t *testing.T) {
	cfg := Config{Humans: JWTConfig{Issuer: humanIssuer, Audience: []string{audience}, HMACSecrets: map[string][]byte{"": ssoSecret}, MaxTTL: 8 * time.Hour}, Now: fixedNow}
	a := newAuthenticator(t, cfg)
	human := Principal{Type: TypeHuman, ID: "alice", Credential: CredentialSSO}
	for _, tc := range []struct {
		name string
		ttl  time.Duration
		want string
	}{{"8h", 8 * time.Hour, ""}, {"9h", 9 * time.Hour, msgTokenLifetime}} {
		t.Run(tc.name, func(t *testing.T) {
			tok := sign(t, jwt.SigningMethodHS256, ssoSecret, "", jwt.MapClaims{
				"iss": humanIssuer, "aud": audience, "sub": "alice", "iat": t0.Unix(), "exp": t0.Add(tc.ttl).Unix(),
			})
			p, err := a.AuthenticateAnswer(requestWith(bearer(tok)))
			checkResult(t, p, err, human, tc.want, tok)
		})
	}
}

func TestNegativeMaxTTLIsRefused(t *testing.T) {
	cfg := hmacAgentsConfig()
	cfg.Agents.MaxTTL = -time.Hour
	if a, err := New(cfg); err == nil {
		_ = a.Close()
		t.Fatal("New accepted a negative max ttl")
	}
}
