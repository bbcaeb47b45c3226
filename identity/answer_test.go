package identity

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func answerConfig(t *testing.T, siteMode string) Config {
	t.Helper()
	cfg := hmacAgentsConfig()
	cfg.SiteMode = siteMode
	cfg.Humans = JWTConfig{
		Issuer:      humanIssuer,
		Audience:    []string{"docs-site"},
		HMACSecrets: map[string][]byte{"": ssoSecret},
		RolesClaim:  "realm_access.roles",
	}
	return cfg
}

func humanToken(t *testing.T, change func(c jwt.MapClaims)) string {
	t.Helper()
	c := jwt.MapClaims{
		"iss":          humanIssuer,
		"aud":          "docs-site",
		"sub":          "alice@example.com",
		"exp":          t0.Add(time.Hour).Unix(),
		"realm_access": map[string]any{"roles": []string{"maintainer", "reader"}},
	}
	if change != nil {
		change(c)
	}
	return sign(t, jwt.SigningMethodHS256, ssoSecret, "", c)
}

func TestAuthenticateAnswer(t *testing.T) {
	store := openTestStore(t, filepath.Join(t.TempDir(), "keys.json"))
	apiKey, _, err := store.Create("agent-docs-bot", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	alice := Principal{Type: TypeHuman, ID: "alice@example.com", Roles: []string{"maintainer", "reader"}, Credential: CredentialSSO}
	agentJWT := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	anonymous := Principal{Type: TypeHuman, Credential: CredentialAnonymous, Anonymous: true}
	expired := humanToken(t, func(c jwt.MapClaims) { c["exp"] = t0.Add(-time.Hour).Unix() })
	forged := sign(t, jwt.SigningMethodHS256, secretA, "", jwt.MapClaims{"iss": humanIssuer, "aud": "docs-site", "sub": "mallory", "exp": t0.Add(time.Hour).Unix()})

	tests := []struct {
		name     string
		siteMode string
		headers  map[string]string
		want     Principal
		msg      string
	}{
		{"public-read without credential", SiteModePublicRead, nil, anonymous, ""},
		{"authenticated-read without credential", SiteModeAuthenticatedRead, nil, Principal{}, msgMissingCredential},
		{"sso token with nested roles", SiteModeAuthenticatedRead, bearer(humanToken(t, nil)), alice, ""},
		{"sso token in public-read", SiteModePublicRead, bearer(humanToken(t, nil)), alice, ""},
		{"roles as a space-separated string", SiteModePublicRead, bearer(humanToken(t, func(c jwt.MapClaims) {
			c["realm_access"] = map[string]any{"roles": "maintainer reader"}
		})), alice, ""},
		{"no roles claim", SiteModePublicRead, bearer(humanToken(t, func(c jwt.MapClaims) { delete(c, "realm_access") })),
			Principal{Type: TypeHuman, ID: "alice@example.com", Credential: CredentialSSO}, ""},
		{"expired sso token in public-read", SiteModePublicRead, bearer(expired), Principal{}, msgTokenExpired},
		{"forged sso token in public-read", SiteModePublicRead, bearer(forged), Principal{}, msgTokenSignature},
		{"agent audience on the sso issuer", SiteModePublicRead, bearer(humanToken(t, func(c jwt.MapClaims) { c["aud"] = audience })), Principal{}, msgTokenAudience},
		{"unknown issuer", SiteModePublicRead, bearer(humanToken(t, func(c jwt.MapClaims) { c["iss"] = "https://evil.test" })), Principal{}, msgTokenIssuer},
		{"malformed bearer in public-read", SiteModePublicRead, bearer("x.y"), Principal{}, msgTokenMalformed},
		{"agent token", SiteModeAuthenticatedRead, bearer(sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))), agentJWT, ""},
		{"agent api key", SiteModeAuthenticatedRead, map[string]string{HeaderAPIKey: apiKey}, Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialAPIKey}, ""},
		{"bad api key in public-read", SiteModePublicRead, map[string]string{HeaderAPIKey: apiKey + "x"}, Principal{}, msgAPIKeyInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := answerConfig(t, tc.siteMode)
			cfg.APIKeys = store
			a := newAuthenticator(t, cfg)
			p, err := a.AuthenticateAnswer(requestWith(tc.headers))
			checkResult(t, p, err, tc.want, tc.msg, tc.headers["Authorization"]+tc.headers[HeaderAPIKey])
		})
	}
}

func TestAnswerWithoutHumanIssuerRefusesForeignTokens(t *testing.T) {
	a := newAuthenticator(t, hmacAgentsConfig()) // public-read, agents only
	p, err := a.AuthenticateAnswer(requestWith(bearer(humanToken(t, nil))))
	checkResult(t, p, err, Principal{}, msgTokenIssuer, "")
	p, err = a.AuthenticateAnswer(requestWith(nil))
	checkResult(t, p, err, Principal{Type: TypeHuman, Credential: CredentialAnonymous, Anonymous: true}, "", "")
}

// A human token must not pass on the agent routes, even once the answer
// route has verified and cached it.
func TestHumanTokenIsNotAnAgent(t *testing.T) {
	a := newAuthenticator(t, answerConfig(t, SiteModePublicRead))
	token := humanToken(t, nil)
	if _, err := a.AuthenticateAnswer(requestWith(bearer(token))); err != nil {
		t.Fatalf("AuthenticateAnswer: %v", err)
	}
	p, err := a.AuthenticateAgent(requestWith(bearer(token)))
	checkResult(t, p, err, Principal{}, msgTokenIssuer, token)
}

func TestRepeatedCredentialHeadersAreRefused(t *testing.T) {
	a := newAuthenticator(t, hmacAgentsConfig())
	token := sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))
	r := requestWith(nil)
	r.Header.Add("Authorization", "Bearer "+token)
	r.Header.Add("Authorization", "Bearer "+token)
	p, err := a.AuthenticateAgent(r)
	checkResult(t, p, err, Principal{}, msgOneCredential, token)
}
