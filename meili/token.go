package meili

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"
)

// tenantHeader is the base64url of {"alg":"HS256","typ":"JWT"}, the header
// Meilisearch's documentation uses (docs/backends.md, Meilisearch wire
// details: Tenant tokens).
var tenantHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// tenantClaims is serialized in this field order, so the same inputs always
// give the same token string, so a test can compare it with an independently
// computed vector (docs/backends.md, Meilisearch wire details: Tenant
// tokens). There is deliberately no aud claim: Meilisearch refuses tokens
// that carry one.
type tenantClaims struct {
	SearchRules map[string]tenantRule `json:"searchRules"`
	APIKeyUID   string                `json:"apiKeyUid"`
	Exp         int64                 `json:"exp"`
}

type tenantRule struct {
	Filter string `json:"filter"`
}

// MintTenantToken signs a Meilisearch tenant token (HS256) that lets the
// bearer search only index, and only within filter: Meilisearch ANDs the
// rule's filter with whatever filter the request carries, so the scope holds
// even if a request filter were wrong. key is the parent API key's value (not
// the master key) and keyUID its uid; exp should be short, since a token
// cannot be revoked before it expires. An empty filter is refused: the token
// would grant the whole index.
func MintTenantToken(key, keyUID, index, filter string, exp time.Time) (string, error) {
	switch {
	case key == "":
		return "", errors.New("minting tenant token: empty key")
	case keyUID == "":
		return "", errors.New("minting tenant token: empty key uid")
	case index == "":
		return "", errors.New("minting tenant token: empty index")
	case filter == "":
		return "", errors.New("minting tenant token: refusing a token without a filter")
	case exp.IsZero():
		return "", errors.New("minting tenant token: no expiry")
	}
	payload, err := json.Marshal(tenantClaims{
		SearchRules: map[string]tenantRule{index: {Filter: filter}},
		APIKeyUID:   keyUID,
		Exp:         exp.Unix(),
	})
	if err != nil {
		return "", err
	}
	signingInput := tenantHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(signingInput))
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}
