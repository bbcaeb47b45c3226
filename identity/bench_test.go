package identity

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// BenchmarkAuthenticateAgent compares full verification (cold: cache
// disabled) with a verified-token cache hit, for HS256 and RS256.
func BenchmarkAuthenticateAgent(b *testing.B) {
	rsaCfg := Config{Agents: JWTConfig{Issuer: agentIssuer, Audience: []string{audience},
		PublicKeysPEM: map[string][]byte{"rsa": pemOf(b, &rsaKey().PublicKey)}}, Now: fixedNow}
	cases := []struct {
		name  string
		cfg   Config
		token string
	}{
		{"HS256", hmacAgentsConfig(), sign(b, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))},
		{"RS256", rsaCfg, sign(b, jwt.SigningMethodRS256, rsaKey(), "rsa", claimsAt(t0))},
	}
	for _, c := range cases {
		for _, mode := range []struct {
			name      string
			cacheSize int
		}{{"cold", -1}, {"cached", 0}} {
			b.Run(c.name+"/"+mode.name, func(b *testing.B) {
				cfg := c.cfg
				cfg.CacheSize = mode.cacheSize
				a := newAuthenticator(b, cfg)
				r := requestWith(bearer(c.token))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.AuthenticateAgent(r); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
