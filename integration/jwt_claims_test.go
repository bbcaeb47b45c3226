package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestJWTClaimsAreRefused: tokens signed with the right key but claiming
// times or headers the gate cannot honour are refused with 401 before any
// backend is called (issue 8 item 9), and max_ttl in the agent_jwt block
// takes effect.
func TestJWTClaimsAreRefused(t *testing.T) {
	g := startGate(t, gateOptions{})
	now := time.Now()
	claims := func(change func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"iss": agentIssuer, "aud": audience, "sub": "kunora-coding-agent", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		change(c)
		return c
	}
	cases := []struct {
		name    string
		token   string
		message string
	}{
		{"iat an hour ahead", signHS256(t, claims(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Hour).Unix() }), nil), "token is issued in the future"},
		{"iat not a number", signHS256(t, claims(func(c jwt.MapClaims) { c["iat"] = "now" }), nil), "token time claim is not a number"},
		{"exp centuries away", signHS256(t, claims(func(c jwt.MapClaims) { c["exp"] = now.AddDate(300, 0, 0).Unix() }), nil), "token lifetime exceeds the accepted maximum"},
		{"exp centuries away, no iat", signHS256(t, claims(func(c jwt.MapClaims) { delete(c, "iat"); c["exp"] = now.AddDate(300, 0, 0).Unix() }), nil), "token lifetime exceeds the accepted maximum"},
		{"25h lifetime over the 24h default", signHS256(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(25 * time.Hour).Unix() }), nil), "token lifetime exceeds the accepted maximum"},
		{"unknown crit header", signHS256(t, claims(func(jwt.MapClaims) {}), map[string]any{"crit": []string{"urn:example:policy"}}), "token has a critical header this gate does not understand"},
	}
	before := g.backendRequests(g.meiliURL, meiliKey)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := g.post("/agent/tools/search", bearer(tc.token), `{"question":"agent memory"}`)
			if r.Status != 401 || r.errorCode(t) != "unauthorized" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if msg := r.json(t)["error"].(map[string]any)["message"]; msg != tc.message {
				t.Errorf("message = %q, want %q", msg, tc.message)
			}
		})
	}
	// +1: the dev Meilisearch logs the read of its own log.
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
		t.Errorf("refused tokens reached Meilisearch: %d requests", after-before-1)
	}
	ok := signHS256(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(23 * time.Hour).Unix() }), nil)
	if r := g.post("/agent/tools/search", bearer(ok), `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("a 23h token under the 24h default: %d %s", r.Status, r.Body)
	}

	t.Run("max_ttl in agent_jwt", func(t *testing.T) {
		g.config = strings.Replace(g.config, "algorithms HS256\n", "algorithms HS256\n\t\t\tmax_ttl 1h\n", 1)
		g.reload()
		two := signHS256(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(2 * time.Hour).Unix() }), nil)
		if r := g.post("/agent/tools/search", bearer(two), `{"question":"agent memory"}`); r.Status != 401 {
			t.Fatalf("a 2h token under max_ttl 1h: %d %s", r.Status, r.Body)
		}
		if r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`); r.Status != 200 {
			t.Fatalf("a 1h token under max_ttl 1h: %d %s", r.Status, r.Body)
		}
	})
}

// signHS256 signs claims with the test gate's agent secret, with extra
// header fields.
func signHS256(t *testing.T, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString([]byte(jwtSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
