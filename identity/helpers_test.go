package identity

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/wikigate/wikigate/protocol"
)

const (
	agentIssuer = "https://agents.test"
	humanIssuer = "https://sso.test"
	audience    = "wikigate"
)

var (
	t0        = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	secretA   = []byte("agent-secret-a-0123456789abcdefghijkl")
	secretB   = []byte("agent-secret-b-0123456789abcdefghijkl")
	ssoSecret = []byte("sso-secret-0123456789abcdefghijklmnop")
)

// fixedNow is the default test clock.
func fixedNow() time.Time { return t0 }

// testClock is a settable clock for tests that move time.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }

// Test keys are generated once per test binary (RSA generation is slow).
var (
	rsaKey   = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	rsaOther = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	ecKey    = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	edKey    = sync.OnceValue(func() ed25519.PrivateKey {
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	})
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func pemOf(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// claimsAt returns valid agent claims at now; tests edit them.
func claimsAt(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": agentIssuer,
		"aud": []string{audience},
		"sub": "agent-docs-bot",
		"iat": now.Unix(),
		"exp": now.Add(10 * time.Minute).Unix(),
	}
}

// sign signs claims with method and key; kid "" leaves the header out.
func sign(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newAuthenticator(t testing.TB, cfg Config) *Authenticator {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func requestWith(headers map[string]string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/agent/tools/search", nil)
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	return r
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// checkResult asserts either a principal or an unauthorized error with
// wantMsg, and that the error never echoes the credential.
func checkResult(t *testing.T, p Principal, err error, want Principal, wantMsg, credential string) {
	t.Helper()
	if wantMsg == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if !principalsEqual(p, want) {
			t.Fatalf("principal = %+v, want %+v", p, want)
		}
		return
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *protocol.Error %q", err, err, wantMsg)
	}
	if pe.Code != protocol.CodeUnauthorized || pe.Status != http.StatusUnauthorized || pe.Message != wantMsg {
		t.Fatalf("error = %q/%d/%q, want unauthorized/401/%q", pe.Code, pe.Status, pe.Message, wantMsg)
	}
	if credential != "" && strings.Contains(err.Error(), credential) {
		t.Fatalf("error message leaks the credential")
	}
}

func principalsEqual(a, b Principal) bool {
	if a.Type != b.Type || a.ID != b.ID || a.Credential != b.Credential || a.Anonymous != b.Anonymous || len(a.Roles) != len(b.Roles) {
		return false
	}
	for i := range a.Roles {
		if a.Roles[i] != b.Roles[i] {
			return false
		}
	}
	return true
}
