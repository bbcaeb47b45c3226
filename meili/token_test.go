package meili

import (
	"strings"
	"testing"
	"time"
)

// The tenant-token test vector (docs/backends.md, Meilisearch wire details:
// Tenant tokens), computed outside the gate (HMAC-SHA256 over the exact
// payload {"searchRules":{"dog":{"filter":"color = blue"}},"apiKeyUid":...,"exp":4102444800}).
const (
	vectorKey   = "aeb94973e0b6e912d94165430bbe87dee91a7c4f891ce19050c3910ec96977e9"
	vectorUID   = "00000000-0000-0000-0000-000000000000"
	vectorToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzZWFyY2hSdWxlcyI6eyJkb2ciOnsiZmlsdGVyIjoiY29sb3IgPSBibHVlIn19LCJhcGlLZXlVaWQiOiIwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDAiLCJleHAiOjQxMDI0NDQ4MDB9.0glP3ofpYXCBCGUNQI583PETS0VyuKOrAisZC07SHDs"
)

func TestMintTenantTokenMatchesVector(t *testing.T) {
	got, err := MintTenantToken(vectorKey, vectorUID, "dog", "color = blue", time.Unix(4102444800, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got != vectorToken {
		t.Errorf("token =\n  %s\nwant\n  %s", got, vectorToken)
	}
}

func TestMintTenantTokenDependsOnKey(t *testing.T) {
	other, err := MintTenantToken(strings.Repeat("0", 64), vectorUID, "dog", "color = blue", time.Unix(4102444800, 0))
	if err != nil {
		t.Fatal(err)
	}
	if other == vectorToken {
		t.Error("a different key gave the same token")
	}
}

func TestMintTenantTokenRefuses(t *testing.T) {
	exp := time.Unix(4102444800, 0)
	tests := map[string][4]string{
		"no key":    {"", vectorUID, "dog", "color = blue"},
		"no uid":    {vectorKey, "", "dog", "color = blue"},
		"no index":  {vectorKey, vectorUID, "", "color = blue"},
		"no filter": {vectorKey, vectorUID, "dog", ""},
	}
	for name, a := range tests {
		if tok, err := MintTenantToken(a[0], a[1], a[2], a[3], exp); err == nil {
			t.Errorf("%s: minted %s", name, tok)
		}
	}
	if _, err := MintTenantToken(vectorKey, vectorUID, "dog", "x = y", time.Time{}); err == nil {
		t.Error("minted a token without expiry")
	}
}
