package identity

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func hmacAgentsConfig() Config {
	return Config{
		Agents: JWTConfig{
			Issuer:      agentIssuer,
			Audience:    []string{audience, "wikigate-staging"},
			HMACSecrets: map[string][]byte{"k1": secretA, "k2": secretB},
		},
		Now: fixedNow,
	}
}

func TestAuthenticateAgentJWT(t *testing.T) {
	agent := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	edit := func(change func(c jwt.MapClaims)) jwt.MapClaims {
		c := claimsAt(t0)
		change(c)
		return c
	}
	// withClaims signs edited claims the valid way (HS256, kid k1).
	withClaims := func(change func(c jwt.MapClaims)) string {
		return sign(t, jwt.SigningMethodHS256, secretA, "k1", edit(change))
	}
	valid := sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))
	hs256Only := hmacAgentsConfig()
	hs256Only.Agents.Algorithms = []string{"HS256"}

	tests := []struct {
		name    string
		cfg     *Config // nil: hmacAgentsConfig
		headers map[string]string
		want    string // "" = success with agent
	}{
		{name: "no credential", headers: nil, want: msgMissingCredential},
		{name: "valid token", headers: bearer(valid)},
		{name: "scheme is case-insensitive", headers: map[string]string{"Authorization": "bEaReR " + valid}},
		{name: "basic scheme", headers: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, want: msgUnsupportedScheme},
		{name: "empty bearer", headers: map[string]string{"Authorization": "Bearer "}, want: msgTokenMalformed},
		{name: "malformed bearer", headers: bearer("not-a-jwt"), want: msgTokenMalformed},
		{name: "garbage segments", headers: bearer("a.b.c"), want: msgTokenMalformed},
		{name: "alg none", headers: bearer(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", claimsAt(t0))), want: msgTokenAlgorithm},
		{name: "alg outside allow-list", cfg: &hs256Only, headers: bearer(sign(t, jwt.SigningMethodHS384, secretA, "k1", claimsAt(t0))), want: msgTokenAlgorithm},
		{name: "HS512 allowed by default for hmac keys", headers: bearer(sign(t, jwt.SigningMethodHS512, secretA, "k1", claimsAt(t0)))},
		{name: "bad signature", headers: bearer(sign(t, jwt.SigningMethodHS256, []byte("someone-else-secret-0123456789abcdef"), "k1", claimsAt(t0))), want: msgTokenSignature},
		{name: "expired", headers: bearer(withClaims(func(c jwt.MapClaims) { c["exp"] = t0.Add(-time.Minute).Unix() })), want: msgTokenExpired},
		{name: "expired within leeway", headers: bearer(withClaims(func(c jwt.MapClaims) { c["exp"] = t0.Add(-10 * time.Second).Unix() }))},
		{name: "not valid yet", headers: bearer(withClaims(func(c jwt.MapClaims) { c["nbf"] = t0.Add(time.Hour).Unix() })), want: msgTokenNotYetValid},
		{name: "missing exp", headers: bearer(withClaims(func(c jwt.MapClaims) { delete(c, "exp") })), want: msgTokenNoExpiry},
		{name: "wrong issuer", headers: bearer(withClaims(func(c jwt.MapClaims) { c["iss"] = "https://evil.test" })), want: msgTokenIssuer},
		{name: "missing issuer", headers: bearer(withClaims(func(c jwt.MapClaims) { delete(c, "iss") })), want: msgTokenIssuer},
		{name: "wrong audience", headers: bearer(withClaims(func(c jwt.MapClaims) { c["aud"] = "other-app" })), want: msgTokenAudience},
		{name: "missing audience", headers: bearer(withClaims(func(c jwt.MapClaims) { delete(c, "aud") })), want: msgTokenAudience},
		{name: "second accepted audience", headers: bearer(withClaims(func(c jwt.MapClaims) { c["aud"] = []string{"x", "wikigate-staging"} }))},
		{name: "missing subject", headers: bearer(withClaims(func(c jwt.MapClaims) { delete(c, "sub") })), want: msgTokenNoSubject},
		{name: "kid selects second secret", headers: bearer(sign(t, jwt.SigningMethodHS256, secretB, "k2", claimsAt(t0)))},
		{name: "kid names the other secret", headers: bearer(sign(t, jwt.SigningMethodHS256, secretA, "k2", claimsAt(t0))), want: msgTokenSignature},
		{name: "unknown kid", headers: bearer(sign(t, jwt.SigningMethodHS256, secretA, "k3", claimsAt(t0))), want: msgUnknownKeyID},
		{name: "no kid and no default key", headers: bearer(sign(t, jwt.SigningMethodHS256, secretA, "", claimsAt(t0))), want: msgUnknownKeyID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := hmacAgentsConfig()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			a := newAuthenticator(t, cfg)
			p, err := a.AuthenticateAgent(requestWith(tc.headers))
			checkResult(t, p, err, agent, tc.want, tc.headers["Authorization"])
		})
	}
}

func TestAuthenticateAgentPEMKeys(t *testing.T) {
	rsaPEM := pemOf(t, &rsaKey().PublicKey)
	cfg := Config{
		Agents: JWTConfig{
			Issuer:   agentIssuer,
			Audience: []string{audience},
			PublicKeysPEM: map[string][]byte{
				"rsa": rsaPEM,
				"ec":  pemOf(t, &ecKey().PublicKey),
				"ed":  pemOf(t, edKey().Public()),
			},
		},
		Now: fixedNow,
	}
	mixed := cfg
	mixed.Agents.HMACSecrets = map[string][]byte{"h": secretA}

	claims := claimsAt(t0)
	tests := []struct {
		name  string
		cfg   Config
		token string
		want  string
	}{
		{"RS256", cfg, sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claims), ""},
		{"PS256", cfg, sign(t, jwt.SigningMethodPS256, rsaKey(), "rsa", claims), ""},
		{"ES256", cfg, sign(t, jwt.SigningMethodES256, ecKey(), "ec", claims), ""},
		{"EdDSA", cfg, sign(t, jwt.SigningMethodEdDSA, edKey(), "ed", claims), ""},
		{"RS256 signed by another key", cfg, sign(t, jwt.SigningMethodRS256, rsaOther(), "rsa", claims), msgTokenSignature},
		{"ES256 token naming the RSA kid", cfg, sign(t, jwt.SigningMethodES256, ecKey(), "rsa", claims), msgTokenAlgorithm},
		{"ES384 for a P-256 key", cfg, sign(t, jwt.SigningMethodES384, must(ecdsaP384()), "ec", claims), msgTokenAlgorithm},
		// Classic confusion: an HS256 token "signed" with the RSA public key PEM.
		{"HS256 with public key as secret", cfg, sign(t, jwt.SigningMethodHS256, rsaPEM, "rsa", claims), msgTokenAlgorithm},
		{"HS256 with public key as secret, hmac also configured", mixed, sign(t, jwt.SigningMethodHS256, rsaPEM, "rsa", claims), msgTokenAlgorithm},
		{"hmac kid still works beside PEM keys", mixed, sign(t, jwt.SigningMethodHS256, secretA, "h", claims), ""},
	}
	want := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthenticator(t, tc.cfg)
			p, err := a.AuthenticateAgent(requestWith(bearer(tc.token)))
			checkResult(t, p, err, want, tc.want, tc.token)
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	rsaPEM := pemOf(t, &rsaKey().PublicKey)
	agents := func(change func(c *JWTConfig)) Config {
		c := hmacAgentsConfig()
		change(&c.Agents)
		return c
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"bad pem names the kid", agents(func(c *JWTConfig) { c.PublicKeysPEM = map[string][]byte{"ops-2026": []byte("nope")} }), `kid "ops-2026"`},
		{"private key pem", agents(func(c *JWTConfig) {
			c.PublicKeysPEM = map[string][]byte{"p": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}})}
		}), `kid "p"`},
		{"missing issuer", agents(func(c *JWTConfig) { c.Issuer = "" }), "issuer is required"},
		{"missing audience", agents(func(c *JWTConfig) { c.Audience = nil }), "audience is required"},
		{"short hmac secret", agents(func(c *JWTConfig) { c.HMACSecrets["k1"] = []byte("short") }), `kid "k1"`},
		{"alg none", agents(func(c *JWTConfig) { c.Algorithms = []string{"none"} }), `"none"`},
		{"alg without a key", agents(func(c *JWTConfig) { c.Algorithms = []string{"RS256"} }), `"RS256"`},
		{"negative leeway", agents(func(c *JWTConfig) { c.Leeway = -time.Second }), "leeway"},
		{"bad jwks url", agents(func(c *JWTConfig) { c.JWKSURL = "ftp://keys" }), "jwks url"},
		{"kid both hmac and pem", agents(func(c *JWTConfig) { c.PublicKeysPEM = map[string][]byte{"k1": rsaPEM} }), `kid "k1"`},
		{"unknown site mode", Config{SiteMode: "open"}, "site mode"},
		{"authenticated-read without sso", Config{SiteMode: SiteModeAuthenticatedRead}, "authenticated-read"},
		{"shared issuer", func() Config {
			c := hmacAgentsConfig()
			c.Humans = JWTConfig{Issuer: agentIssuer, Audience: []string{audience}, HMACSecrets: map[string][]byte{"": ssoSecret}}
			return c
		}(), "different token issuers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(tc.cfg)
			if err == nil {
				_ = a.Close()
				t.Fatalf("New succeeded, want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), string(secretA)) {
				t.Fatalf("error leaks a secret")
			}
		})
	}
}

func ecdsaP384() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P384(), rand.Reader) }
