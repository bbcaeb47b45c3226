package identity

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// maxRoles bounds how many roles a token may bring into policy input.
const maxRoles = 64

// rolesFrom reads the roles claim: a JSON array of strings or a
// space-separated string. A claim name with dots ("realm_access.roles")
// walks nested objects when no top-level claim has that exact name.
func rolesFrom(claims jwt.MapClaims, claim string) []string {
	value, ok := claims[claim]
	if !ok && strings.Contains(claim, ".") {
		value = nestedClaim(claims, strings.Split(claim, "."))
	}
	var roles []string
	switch v := value.(type) {
	case string:
		roles = strings.Fields(v)
	case []any:
		for _, item := range v {
			if s, ok := item.(string); ok && s != "" {
				roles = append(roles, s)
			}
		}
	}
	if len(roles) > maxRoles {
		roles = roles[:maxRoles]
	}
	return roles
}

func nestedClaim(claims map[string]any, path []string) any {
	var current any = claims
	for _, name := range path {
		object, ok := current.(map[string]any)
		if !ok {
			return nil
		}
		current = object[name]
	}
	return current
}

// unverifiedIssuer reads iss from a token without checking anything; it only
// routes the token to a verifier, which then checks iss and signature. Any
// decoding problem yields "".
func unverifiedIssuer(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Issuer
}
