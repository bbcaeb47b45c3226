package identity

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/zap"
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

// A slow identity provider must not hold requests past their own deadline,
// and concurrent first uses share one fetch that outlives the caller who
// started it.
func TestJWKSSlowFirstFetchRespectsRequestContext(t *testing.T) {
	keys := newJWKSServer(t)
	keys.serve(t, map[string]any{"r1": rsaKey()})
	entered, release := make(chan struct{}, 10), make(chan struct{})
	var releaseOnce sync.Once
	releaseFetch := func() { releaseOnce.Do(func() { close(release) }) }
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		keys.Config.Handler.ServeHTTP(w, r)
	}))
	defer slow.Close()
	defer releaseFetch() // before slow.Close, which waits for the handler
	a := newAuthenticator(t, jwksConfig(slow.URL))
	token := sign(t, jwt.SigningMethodRS256, rsaKey(), "r1", claimsAt(t0))
	type result struct {
		p   Principal
		err error
	}
	authenticate := func(ctx context.Context) <-chan result {
		out := make(chan result, 1)
		go func() {
			p, err := a.AuthenticateAgent(requestWith(bearer(token)).WithContext(ctx))
			out <- result{p, err}
		}()
		return out
	}

	patient := authenticate(context.Background()) // starts the fetch and waits for it
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	var impatient []<-chan result
	for range 5 {
		impatient = append(impatient, authenticate(ctx))
	}
	cancel()
	for i, result := range impatient { // the fetch is still held by the server
		select {
		case r := <-result:
			checkResult(t, r.p, r.err, Principal{}, msgKeysUnavailable, token)
		case <-time.After(30 * time.Second): // hang guard only, not a timing check
			t.Fatalf("request %d waited for the jwks fetch after its context ended", i)
		}
	}
	releaseFetch()
	want := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	r := <-patient
	checkResult(t, r.p, r.err, want, "", token)
	p, err := a.AuthenticateAgent(requestWith(bearer(token)))
	checkResult(t, p, err, want, "", token)
	if n := keys.fetches.Load(); n != 1 {
		t.Fatalf("jwks fetched %d times, want 1 shared fetch", n)
	}
}

// A JWKS is public; an "oct" key in it would let any reader sign tokens.
func TestJWKSIgnoresSymmetricKeys(t *testing.T) {
	srv := newJWKSServer(t)
	rsaJWK, err := jwkset.NewJWKFromKey(&rsaKey().PublicKey, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: "r1"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"keys": []any{
		map[string]string{"kty": "oct", "kid": "h", "k": base64.RawURLEncoding.EncodeToString(secretA)},
		rsaJWK.Marshal(),
	}}
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	srv.body.Store(&body)
	a := newAuthenticator(t, jwksConfig(srv.URL))
	ctx := context.Background()

	if _, err := a.agents.jwks.key(ctx, "h"); !errors.Is(err, errUnknownKeyID) {
		t.Fatalf("key(oct kid) error = %v, want errUnknownKeyID", err)
	}
	all, err := a.agents.jwks.all(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("all() = %d keys, want only the rsa key", len(all))
	}
	if _, symmetric := all[0].key.([]byte); symmetric {
		t.Fatal("all() returned the symmetric key")
	}
}

func TestNewJWKSConfig(t *testing.T) {
	withJWKS := func(url string, change func(c *JWTConfig)) Config {
		c := jwksConfig(url)
		if change != nil {
			change(&c.Agents)
		}
		return c
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string // "" = accepted
	}{
		{"https", withJWKS("https://idp.example.com/jwks", nil), ""},
		{"http to 127.0.0.1", withJWKS("http://127.0.0.1:8080/jwks", nil), ""},
		{"http to 127.8.9.10", withJWKS("http://127.8.9.10/jwks", nil), ""},
		{"http to ::1", withJWKS("http://[::1]:8080/jwks", nil), ""},
		{"http to localhost", withJWKS("http://LocalHost:8080/jwks", nil), ""},
		{"http to a remote host", withJWKS("http://idp.example.com/jwks", nil), "https"},
		{"http to a private address", withJWKS("http://10.0.0.5/jwks", nil), "https"},
		{"http to a localhost lookalike", withJWKS("http://localhost.example.com/jwks", nil), "https"},
		{"HS256 with a jwks", withJWKS("https://idp.example.com/jwks", func(c *JWTConfig) { c.Algorithms = []string{"HS256"} }), `"HS256"`},
		{"HS512 beside RS256", withJWKS("https://idp.example.com/jwks", func(c *JWTConfig) { c.Algorithms = []string{"RS256", "HS512"} }), `"HS512"`},
		{"hmac secret beside a jwks", withJWKS("https://idp.example.com/jwks", func(c *JWTConfig) {
			c.HMACSecrets = map[string][]byte{"h": secretA}
		}), "hmac secrets"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(tc.cfg)
			if err == nil {
				_ = a.Close()
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("New succeeded, want error containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}

// An https JWKS URL must not be downgraded to http by a redirect.
func TestJWKSRedirectMustStayHTTPS(t *testing.T) {
	j := newLazyJWKS(context.Background(), "https://idp.example.com/jwks", zap.NewNop())
	via := []*http.Request{httptest.NewRequest(http.MethodGet, "https://idp.example.com/jwks", nil)}
	for target, wantOK := range map[string]bool{
		"https://keys.example.com/jwks": true,
		"http://127.0.0.1:9/jwks":       true,
		"http://keys.example.com/jwks":  false,
	} {
		err := j.client.CheckRedirect(httptest.NewRequest(http.MethodGet, target, nil), via)
		if (err == nil) != wantOK {
			t.Errorf("redirect to %s: err = %v, want allowed=%v", target, err, wantOK)
		}
	}
}
