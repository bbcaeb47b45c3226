package identity

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// jwksServer serves a replaceable JWK Set and counts fetches.
type jwksServer struct {
	*httptest.Server
	body    atomic.Pointer[[]byte]
	fetches atomic.Int32
}

func newJWKSServer(t *testing.T) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*s.body.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

// serve publishes the public halves of keys (kid → private key).
func (s *jwksServer) serve(t *testing.T, keys map[string]any) {
	t.Helper()
	store := jwkset.NewMemoryStorage()
	for kid, key := range keys {
		jwk, err := jwkset.NewJWKFromKey(publicOf(key), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid}})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.KeyWrite(context.Background(), jwk); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := store.JSONPublic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(raw)
	s.body.Store(&b)
}

func jwksConfig(url string) Config {
	return Config{
		Agents: JWTConfig{Issuer: agentIssuer, Audience: []string{audience}, JWKSURL: url},
		Now:    fixedNow,
	}
}

func TestJWKSFetchedLazilyAndRefreshedOnUnknownKID(t *testing.T) {
	srv := newJWKSServer(t)
	srv.serve(t, map[string]any{"r1": rsaKey()})
	a := newAuthenticator(t, jwksConfig(srv.URL))
	if n := srv.fetches.Load(); n != 0 {
		t.Fatalf("New fetched the JWKS %d times, want none", n)
	}
	want := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}

	steps := []struct {
		name        string
		token       string
		want        string
		wantFetches int32
	}{
		{"first use fetches", sign(t, jwt.SigningMethodRS256, rsaKey(), "r1", claimsAt(t0)), "", 1},
		{"known kid does not fetch", sign(t, jwt.SigningMethodPS384, rsaKey(), "r1", claimsAt(t0)), "", 1},
		{"new kid triggers a refresh", sign(t, jwt.SigningMethodES256, ecKey(), "e2", claimsAt(t0)), "", 2},
		{"unknown kid is rate-limited", sign(t, jwt.SigningMethodRS256, rsaOther(), "nope", claimsAt(t0)), msgUnknownKeyID, 2},
		{"no kid tries every key", sign(t, jwt.SigningMethodES256, ecKey(), "", claimsAt(t0)), "", 2},
		{"HS256 is not allowed for a JWKS", sign(t, jwt.SigningMethodHS256, secretA, "r1", claimsAt(t0)), msgTokenAlgorithm, 2},
	}
	for i, step := range steps {
		if i == 2 { // the identity provider rotates in a new key
			srv.serve(t, map[string]any{"r1": rsaKey(), "e2": ecKey()})
		}
		p, err := a.AuthenticateAgent(requestWith(bearer(step.token)))
		t.Run(step.name, func(t *testing.T) {
			checkResult(t, p, err, want, step.want, step.token)
			if n := srv.fetches.Load(); n != step.wantFetches {
				t.Fatalf("fetches = %d, want %d", n, step.wantFetches)
			}
		})
	}
}

func TestJWKSUnreachableOnFirstUse(t *testing.T) {
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	a := newAuthenticator(t, jwksConfig(srv.URL))
	token := sign(t, jwt.SigningMethodRS256, rsaKey(), "r1", claimsAt(t0))
	for range 2 { // the second call fails fast without fetching again
		p, err := a.AuthenticateAgent(requestWith(bearer(token)))
		checkResult(t, p, err, Principal{}, msgKeysUnavailable, token)
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (retries wait %v)", n, jwksInitRetryInterval)
	}
}
