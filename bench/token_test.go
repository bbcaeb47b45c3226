package bench

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// BenchmarkAgentTokenPool extends identity's BenchmarkAuthenticateAgent
// (one token, cold and cached) to a fleet: 10,000 agents' HS256 tokens
// presented round-robin, with the verified-token cache off (every call
// verifies) and on at its default size (every call after the first round
// is a hit among 10,000 entries).
func BenchmarkAgentTokenPool(b *testing.B) {
	const agents = 10_000
	secret := []byte("bench-secret-bench-secret-bench-secret")
	tokens := make([]string, agents)
	for i := range tokens {
		var err error
		tokens[i], err = identity.MintHS256(identity.MintOptions{Secret: secret, Issuer: "wikigate-dev",
			Audience: []string{"wikigate"}, Subject: fmt.Sprintf("agent-%05d", i), TTL: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
	}
	requests := make([]*http.Request, agents)
	for i, token := range tokens {
		requests[i], _ = http.NewRequest(http.MethodPost, "http://gate/agent/tools/search", nil)
		requests[i].Header.Set("Authorization", "Bearer "+token)
	}
	for _, mode := range []struct {
		name      string
		cacheSize int
	}{{"cold", -1}, {"cached", 0}} {
		b.Run(fmt.Sprintf("agents=%d/%s", agents, mode.name), func(b *testing.B) {
			auth, err := identity.New(identity.Config{CacheSize: mode.cacheSize, Agents: identity.JWTConfig{
				Issuer: "wikigate-dev", Audience: []string{"wikigate"}, Algorithms: []string{"HS256"},
				HMACSecrets: map[string][]byte{"": secret}}})
			if err != nil {
				b.Fatal(err)
			}
			defer auth.Close()
			for _, r := range requests { // fill the cache
				if _, err := auth.AuthenticateAgent(r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := auth.AuthenticateAgent(requests[i%agents]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
