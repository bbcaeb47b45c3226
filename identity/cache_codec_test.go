package identity

import (
	"reflect"
	"testing"
	"time"
)

func TestCachedPrincipalRoundTrip(t *testing.T) {
	for _, e := range []cachedPrincipal{
		{Principal: Principal{Type: TypeAgent, ID: "kunora-coding-agent", Credential: CredentialJWT}, ExpUnix: 1795525981},
		{Principal: Principal{Type: TypeAgent, ID: "ci-bot", Credential: CredentialAPIKey, KeyID: "wgk_ab12cd34"}, ExpUnix: 1},
		{Principal: Principal{Type: TypeHuman, ID: "alice", Roles: []string{"wiki-maintainer", "reader"}, Credential: CredentialSSO}, ExpUnix: -5},
		{Principal: anonymousHuman()},
		{Principal: Principal{Type: "other", ID: "ünïcode\x00id", Credential: "custom"}, ExpUnix: 1 << 62},
	} {
		got, err := decodeCachedPrincipal(encodeCachedPrincipal(e))
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("round trip of %+v: %+v, %v", e, got, err)
		}
	}
}

// A damaged entry is a miss (the token is verified again), never a wrong
// principal: every strict prefix and a trailing byte are refused.
func TestCachedPrincipalDamagedIsRefused(t *testing.T) {
	raw := encodeCachedPrincipal(cachedPrincipal{Principal: Principal{Type: TypeHuman, ID: "alice", Roles: []string{"r"}, Credential: CredentialSSO}, ExpUnix: 9})
	for i := range raw {
		if _, err := decodeCachedPrincipal(raw[:i]); err == nil {
			t.Errorf("prefix of %d bytes accepted", i)
		}
	}
	if _, err := decodeCachedPrincipal(append(raw, 0)); err == nil {
		t.Error("trailing byte accepted")
	}
	c, err := newTokenCache(0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	_ = c.cache.Set("k", raw[:len(raw)-1])
	if _, ok := c.get("k", time.Unix(0, 0)); ok {
		t.Error("a damaged cache entry was served")
	}
}

func FuzzDecodeCachedPrincipal(f *testing.F) {
	f.Add(encodeCachedPrincipal(cachedPrincipal{Principal: Principal{Type: TypeAgent, ID: "a", Roles: []string{"x"}, Credential: CredentialJWT}}))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := decodeCachedPrincipal(raw)
		if err != nil {
			return
		}
		again, err := decodeCachedPrincipal(encodeCachedPrincipal(e))
		if err != nil || !reflect.DeepEqual(again, e) {
			t.Fatalf("decoded %+v does not round-trip: %+v, %v", e, again, err)
		}
	})
}
