package identity

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// requestWithValues builds a request whose headers may repeat.
func requestWithValues(headers map[string][]string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/agent/tools/search", nil)
	for k, vs := range headers {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	return r
}

func TestReadCredential(t *testing.T) {
	tests := []struct {
		name    string
		headers map[string][]string
		want    Presented
		msg     string // "" = no error
	}{
		{"nothing", nil, Presented{}, ""},
		{"bearer", map[string][]string{"Authorization": {"Bearer t0k"}}, Presented{PresentedBearer, "t0k"}, ""},
		{"bearer scheme in any case", map[string][]string{"Authorization": {"bEARER  t0k "}}, Presented{PresentedBearer, "t0k"}, ""},
		{"api key", map[string][]string{HeaderAPIKey: {" wgk_abc_def "}}, Presented{PresentedAPIKey, "wgk_abc_def"}, ""},
		{"authorization and api key", map[string][]string{"Authorization": {"Bearer t0k"}, HeaderAPIKey: {"wgk_abc_def"}}, Presented{}, msgOneCredential},
		{"two authorization headers", map[string][]string{"Authorization": {"Bearer a", "Bearer b"}}, Presented{}, msgOneCredential},
		{"the same bearer twice", map[string][]string{"Authorization": {"Bearer a", "Bearer a"}}, Presented{}, msgOneCredential},
		{"two api keys", map[string][]string{HeaderAPIKey: {"wgk_a_b", "wgk_c_d"}}, Presented{}, msgOneCredential},
		{"an empty api key beside a bearer", map[string][]string{"Authorization": {"Bearer t0k"}, HeaderAPIKey: {""}}, Presented{}, msgOneCredential},
		{"empty authorization", map[string][]string{"Authorization": {""}}, Presented{}, msgEmptyCredential},
		{"blank api key", map[string][]string{HeaderAPIKey: {"   "}}, Presented{}, msgEmptyCredential},
		{"basic scheme", map[string][]string{"Authorization": {"Basic dXNlcjpwYXNz"}}, Presented{}, msgUnsupportedScheme},
		{"bearer without token", map[string][]string{"Authorization": {"Bearer"}}, Presented{}, msgTokenMalformed},
		{"session token is not a credential", map[string][]string{"X-Session-Token": {"s1", "s2"}}, Presented{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := requestWithValues(tc.headers)
			got, err := ReadCredential(r)
			if tc.msg == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ReadCredential = %+v, %v; want %+v", got, err, tc.want)
				}
			} else {
				checkResult(t, Principal{}, err, Principal{}, tc.msg, "t0k")
			}
			if want := tc.msg != "" || tc.want.Kind != PresentedNone; PresentsCredential(r) != want {
				t.Errorf("PresentsCredential = %v, want %v", !want, want)
			}
		})
	}
}

// One credential per call, on both authenticators: two credentials are
// refused whatever each is worth, so an invalid one never hides behind a
// valid one (before, the API key decided and the token was never read).
func TestOneCredentialPerCall(t *testing.T) {
	store := openTestStore(t, filepath.Join(t.TempDir(), "keys.json"))
	key, _, err := store.Create("agent-docs-bot", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	valid := sign(t, jwt.SigningMethodHS256, secretA, "k1", claimsAt(t0))
	forged := sign(t, jwt.SigningMethodHS256, []byte("someone-else-secret-0123456789abcdef"), "k1", claimsAt(t0))
	cases := map[string]map[string][]string{
		"valid token and valid key":     {"Authorization": {"Bearer " + valid}, HeaderAPIKey: {key}},
		"invalid token and valid key":   {"Authorization": {"Bearer " + forged}, HeaderAPIKey: {key}},
		"valid token and invalid key":   {"Authorization": {"Bearer " + valid}, HeaderAPIKey: {key + "x"}},
		"invalid token and a valid one": {"Authorization": {"Bearer " + forged, "Bearer " + valid}},
		"a valid key twice":             {HeaderAPIKey: {key, key}},
	}
	cfg := answerConfig(t, SiteModePublicRead)
	cfg.APIKeys = store
	a := newAuthenticator(t, cfg)
	for name, headers := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := a.AuthenticateAgent(requestWithValues(headers))
			checkResult(t, p, err, Principal{}, msgOneCredential, key)
			p, err = a.AuthenticateAnswer(requestWithValues(headers))
			checkResult(t, p, err, Principal{}, msgOneCredential, key)
		})
	}
	// each alone is what it is
	p, err := a.AuthenticateAgent(requestWithValues(map[string][]string{HeaderAPIKey: {key}}))
	checkResult(t, p, err, Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialAPIKey}, "", "")
	p, err = a.AuthenticateAgent(requestWith(bearer(valid)))
	checkResult(t, p, err, Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}, "", "")
}

// An empty credential header is a refused credential, not none: in
// public-read it must not make the caller anonymous.
func TestEmptyCredentialIsNotAnonymous(t *testing.T) {
	a := newAuthenticator(t, answerConfig(t, SiteModePublicRead))
	for _, h := range []string{"Authorization", HeaderAPIKey} {
		r := requestWithValues(map[string][]string{h: {""}})
		p, err := a.AuthenticateAnswer(r)
		checkResult(t, p, err, Principal{}, msgEmptyCredential, "")
		p, err = a.AuthenticateAgent(r)
		checkResult(t, p, err, Principal{}, msgEmptyCredential, "")
	}
}

// respell returns token with its segment i rewritten by f.
func respell(token string, i int, f func(string) string) string {
	parts := strings.Split(token, ".")
	parts[i] = f(parts[i])
	return strings.Join(parts, ".")
}

// A token has one spelling: base64url without padding, spare bits zero.
// Standard base64 (+ and /), padding and a last character that differs only
// in its unused bits decode to the same bytes under a lenient decoder, so
// each would be another accepted spelling of one signed token.
func TestTokensAreDecodedStrictly(t *testing.T) {
	a := newAuthenticator(t, answerConfig(t, SiteModePublicRead))
	agent := Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialJWT}
	// a signature with - or _ in it, so standard base64 differs, and a
	// payload whose length padding would change
	var valid string
	for i := 0; i < 1000; i++ {
		c := claimsAt(t0)
		c["jti"] = strings.Repeat("x", i%3) + string(rune('a'+i%26))
		valid = sign(t, jwt.SigningMethodHS256, secretA, "k1", c)
		parts := strings.Split(valid, ".")
		if strings.ContainsAny(parts[2], "-_") && len(parts[1])%4 != 0 {
			break
		}
	}
	p, err := a.AuthenticateAgent(requestWith(bearer(valid)))
	checkResult(t, p, err, agent, "", "")

	// HS256 signatures are 32 bytes: 43 characters, the last carrying two
	// spare bits. Flipping one gives another string for the same bytes.
	spareBit := func(s string) string {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, s[len(s)-1])
		return s[:len(s)-1] + string(alphabet[last^1])
	}
	standard := strings.NewReplacer("-", "+", "_", "/").Replace
	padded := func(s string) string { return s + strings.Repeat("=", (4-len(s)%4)%4) }
	for name, spelled := range map[string]string{
		"signature with spare bits set": respell(valid, 2, spareBit),
		"signature in standard base64":  respell(valid, 2, standard),
		"signature with padding":        respell(valid, 2, func(s string) string { return s + "=" }),
		"payload with padding":          respell(valid, 1, padded),
	} {
		t.Run(name, func(t *testing.T) {
			if spelled == valid {
				t.Fatal("the respelling changed nothing")
			}
			p, err := a.AuthenticateAgent(requestWith(bearer(spelled)))
			checkResult(t, p, err, Principal{}, msgTokenMalformed, "")
			p, err = a.AuthenticateAnswer(requestWith(bearer(spelled)))
			checkResult(t, p, err, Principal{}, msgTokenMalformed, "")
		})
	}
}
