package identity

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MintOptions describes a development token.
type MintOptions struct {
	Secret     []byte
	KeyID      string // "" = no kid header
	Issuer     string
	Audience   []string
	Subject    string
	TTL        time.Duration
	Roles      []string // humans; written to RolesClaim when set
	RolesClaim string   // "" = DefaultRolesClaim
	Now        func() time.Time
}

// MintHS256 signs a token with iss, aud, sub, iat and exp (plus the roles
// claim when Roles is set). It is for the CLI and tests: production agents
// get tokens from their identity provider.
func MintHS256(o MintOptions) (string, error) {
	if err := o.validate(); err != nil {
		return "", err
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	issuedAt := now()
	claims := jwt.MapClaims{
		"iss": o.Issuer,
		"aud": o.Audience,
		"sub": o.Subject,
		"iat": jwt.NewNumericDate(issuedAt),
		"exp": jwt.NewNumericDate(issuedAt.Add(o.TTL)),
	}
	if len(o.Roles) > 0 {
		rolesClaim := o.RolesClaim
		if rolesClaim == "" {
			rolesClaim = DefaultRolesClaim
		}
		claims[rolesClaim] = o.Roles
	}
	token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	if o.KeyID != "" {
		token.Header["kid"] = o.KeyID
	}
	signed, err := token.SignedString(o.Secret)
	if err != nil {
		return "", fmt.Errorf("signing token: %w", err)
	}
	return signed, nil
}

func (o MintOptions) validate() error {
	switch {
	case len(o.Secret) < minHMACSecretBytes:
		return fmt.Errorf("secret must be at least %d bytes", minHMACSecretBytes)
	case o.Issuer == "":
		return errors.New("issuer is required")
	case len(o.Audience) == 0:
		return errors.New("audience is required")
	case o.Subject == "":
		return errors.New("subject is required")
	case o.TTL <= 0:
		return errors.New("ttl must be positive")
	}
	return nil
}
