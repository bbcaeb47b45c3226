package identity

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/zap"
)

// maxTokenBytes caps what is hashed and parsed; real tokens are far smaller.
const maxTokenBytes = 16 << 10

// Reasons a key lookup fails, mapped to caller messages by describe.
var (
	errUnknownKeyID        = errors.New("unknown key id")
	errAlgorithmNotAllowed = errors.New("algorithm not allowed for key")
	errCriticalHeader      = errors.New("token has a crit header")
)

// verifier checks the tokens of one issuer. It is immutable after
// construction and safe for concurrent use.
type verifier struct {
	domain    string // cache key domain, keeps agent and human results apart
	principal func(sub string, claims jwt.MapClaims) Principal
	issuer    string
	maxTTL    time.Duration // longest exp − iat (or exp − now) accepted
	parser    *jwt.Parser
	allowed   []string
	static    map[string]staticKey
	jwks      *lazyJWKS // nil without JWKSURL
	cache     *tokenCache
	now       func() time.Time
}

// verifierDeps are what the Authenticator shares with its verifiers.
type verifierDeps struct {
	ctx    context.Context
	cache  *tokenCache
	now    func() time.Time
	logger *zap.Logger
}

// newVerifier builds the verifier for c; nil when c has no key source.
func newVerifier(c JWTConfig, domain string, principal func(string, jwt.MapClaims) Principal, d verifierDeps) (*verifier, error) {
	if !c.enabled() {
		return nil, nil
	}
	static, err := parseStaticKeys(c)
	if err != nil {
		return nil, err
	}
	allowed, err := allowedAlgorithms(c, static)
	if err != nil {
		return nil, err
	}
	c = c.withDefaults()
	v := &verifier{
		domain:    domain,
		principal: principal,
		issuer:    c.Issuer,
		maxTTL:    c.MaxTTL,
		allowed:   allowed,
		static:    static,
		cache:     d.cache,
		now:       d.now,
		parser: jwt.NewParser(
			jwt.WithValidMethods(allowed),
			jwt.WithIssuer(c.Issuer),
			jwt.WithAudience(c.Audience...),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(), // iat in the future or not a number is refused
			jwt.WithLeeway(c.Leeway),
			jwt.WithTimeFunc(d.now),
			// Base64url without padding only (RFC 7515 §2), its spare
			// trailing bits zero (RFC 4648 §3.5): a token has one spelling,
			// and a copy with padding, standard base64's + and /, or
			// flipped spare bits is refused as malformed.
			jwt.WithStrictDecoding(),
		),
	}
	if c.JWKSURL != "" {
		v.jwks = newLazyJWKS(d.ctx, c.JWKSURL, d.logger)
	}
	return v, nil
}

// verify authenticates token, answering from the cache while the cached
// token has not reached its exp.
func (v *verifier) verify(ctx context.Context, token string) (Principal, error) {
	if len(token) > maxTokenBytes {
		return Principal{}, unauthorized(msgTokenTooLarge)
	}
	now := v.now()
	cacheKey := tokenCacheKey(v.domain, token)
	if p, ok := v.cache.get(cacheKey, now); ok {
		return p, nil
	}
	claims := jwt.MapClaims{}
	tok, err := v.parser.ParseWithClaims(token, claims, v.keyfunc(ctx))
	if err != nil {
		return Principal{}, v.describe(tok, claims, err)
	}
	sub, err := claims.GetSubject()
	if err != nil || sub == "" {
		return Principal{}, unauthorized(msgTokenNoSubject)
	}
	exp, err := v.checkLifetime(claims, now)
	if err != nil {
		return Principal{}, err
	}
	p := v.principal(sub, claims)
	v.cache.put(cacheKey, p, exp, now)
	return p, nil
}

// checkLifetime refuses a token that lives longer than maxTTL, measured from
// its iat (or from now when it has none), and returns its exp. A stolen
// token with an exp centuries away would otherwise work until the key is
// rotated. The parser has already required exp and checked both claims are
// numbers, so their errors cannot occur here.
func (v *verifier) checkLifetime(claims jwt.MapClaims, now time.Time) (time.Time, error) {
	exp, _ := claims.GetExpirationTime()
	iat, _ := claims.GetIssuedAt()
	if exp == nil {
		return time.Time{}, unauthorized(msgTokenNoExpiry)
	}
	from := now
	if iat != nil {
		from = iat.Time
	}
	if exp.Sub(from) > v.maxTTL { // Sub saturates, so no overflow for absurd exp
		return time.Time{}, unauthorized(msgTokenLifetime)
	}
	return exp.Time, nil
}

// keyfunc picks the key by kid: configured keys first, then the JWKS. The
// token's alg must be one the chosen key's type (and JWK "alg") allows.
func (v *verifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		if _, crit := t.Header["crit"]; crit {
			// RFC 7515 §4.1.11: a recipient must refuse a token whose crit
			// names an extension it does not understand. We understand
			// none, so any crit (even an empty one, itself invalid) fails.
			return nil, errCriticalHeader
		}
		alg := t.Method.Alg()
		rawKID, hasKID := t.Header["kid"]
		if !hasKID {
			return v.keysWithoutKID(ctx, alg)
		}
		kid, ok := rawKID.(string)
		if !ok {
			return nil, errUnknownKeyID
		}
		k, err := v.keyByID(ctx, kid)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(k.algorithms, alg) {
			return nil, errAlgorithmNotAllowed
		}
		return k.key, nil
	}
}

func (v *verifier) keyByID(ctx context.Context, kid string) (staticKey, error) {
	if k, ok := v.static[kid]; ok {
		return k, nil
	}
	if v.jwks == nil {
		return staticKey{}, errUnknownKeyID
	}
	return v.jwks.key(ctx, kid)
}

// keysWithoutKID serves tokens that carry no kid: the key configured under
// kid "", else every JWKS key that can verify alg.
func (v *verifier) keysWithoutKID(ctx context.Context, alg string) (any, error) {
	if k, ok := v.static[""]; ok {
		if !slices.Contains(k.algorithms, alg) {
			return nil, errAlgorithmNotAllowed
		}
		return k.key, nil
	}
	if v.jwks == nil {
		return nil, errUnknownKeyID
	}
	all, err := v.jwks.all(ctx)
	if err != nil {
		return nil, err
	}
	var set jwt.VerificationKeySet
	for _, k := range all {
		if slices.Contains(k.algorithms, alg) {
			set.Keys = append(set.Keys, k.key)
		}
	}
	if len(set.Keys) == 0 {
		return nil, errUnknownKeyID
	}
	return set, nil
}

// describe turns a parse failure into the caller's unauthorized error.
func (v *verifier) describe(tok *jwt.Token, claims jwt.MapClaims, err error) error {
	iss, _ := claims["iss"].(string) // decoded before key lookup, unverified
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthorized(msgTokenMalformed)
	case iss != v.issuer:
		// Said first: a token from another issuer is simply not for us,
		// whatever its kid or signature.
		return unauthorized(msgTokenIssuer)
	case errors.Is(err, errCriticalHeader):
		return unauthorized(msgTokenCritical)
	case errors.Is(err, errAlgorithmNotAllowed):
		return unauthorized(msgTokenAlgorithm)
	case errors.Is(err, errUnknownKeyID):
		return unauthorized(msgUnknownKeyID)
	case errors.Is(err, errKeysUnavailable):
		return unauthorized(msgKeysUnavailable)
	case tok != nil && tok.Method != nil && !slices.Contains(v.allowed, tok.Method.Alg()):
		return unauthorized(msgTokenAlgorithm) // includes alg "none"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return unauthorized(msgTokenAlgorithm) // alg missing or unknown to golang-jwt
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return unauthorized(msgTokenSignature)
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return unauthorized(describeClaims(claims, err))
	default:
		return unauthorized(msgTokenInvalid)
	}
}

// describeClaims names the failing claim check. golang-jwt joins all claim
// failures; issuer and audience come first because they say the token is
// meant for someone else, whatever its times.
func describeClaims(claims jwt.MapClaims, err error) string {
	missing := errors.Is(err, jwt.ErrTokenRequiredClaimMissing)
	switch {
	case errors.Is(err, jwt.ErrTokenInvalidIssuer) || missing && absent(claims, "iss"):
		return msgTokenIssuer
	case errors.Is(err, jwt.ErrTokenInvalidAudience) || missing && absent(claims, "aud"):
		return msgTokenAudience
	case missing && absent(claims, "exp"):
		return msgTokenNoExpiry
	case errors.Is(err, jwt.ErrInvalidType):
		return msgTokenTimeClaim // exp, nbf or iat is not a number
	case errors.Is(err, jwt.ErrTokenExpired):
		return msgTokenExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return msgTokenNotYetValid
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return msgTokenIssuedInFuture
	default:
		return msgTokenInvalid
	}
}

// absent reports a claim that is missing or empty.
func absent(claims jwt.MapClaims, name string) bool {
	switch v := claims[name].(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	default:
		return false
	}
}
