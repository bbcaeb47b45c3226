package identity

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Defaults applied by New.
const (
	DefaultLeeway     = 30 * time.Second
	DefaultMaxTTL     = 24 * time.Hour
	DefaultRolesClaim = "roles"
	DefaultCacheSize  = 8 << 20 // bytes
)

// JWTConfig describes one token issuer: the agents' issuer or the humans'
// SSO issuer. An issuer is enabled when it has at least one key source
// (HMACSecrets, PublicKeysPEM or JWKSURL).
type JWTConfig struct {
	Issuer   string
	Audience []string // a token must carry at least one of these
	// Algorithms is the allow-list. Empty means every algorithm the
	// configured keys can verify: HS256/384/512 for HMAC secrets, RS*/PS*
	// for RSA, ES256/384/512 by curve, EdDSA for Ed25519, and all
	// asymmetric algorithms for a JWKS. "none" is always refused.
	Algorithms    []string
	HMACSecrets   map[string][]byte // kid → secret; kid "" verifies tokens without kid
	PublicKeysPEM map[string][]byte // kid → PEM public key (RSA, ECDSA, Ed25519) or certificate
	// JWKSURL is fetched on first use, never by New, so that `caddy
	// validate` stays offline. It is refreshed when a token names an
	// unknown kid (at most once a minute) and every 15 minutes. It must be
	// https (http only to a loopback host); its symmetric keys are ignored,
	// and it cannot be combined with HMACSecrets or HS* algorithms.
	JWKSURL string
	Leeway  time.Duration // clock skew allowance; 0 = DefaultLeeway
	// MaxTTL is the longest lifetime a token may claim: exp − iat, or
	// exp − now when it has no iat. 0 = DefaultMaxTTL. It bounds how long
	// a leaked token works, whatever exp its issuer wrote.
	MaxTTL     time.Duration
	RolesClaim string // humans: claim carrying roles; "" = DefaultRolesClaim; dots walk nested objects
}

// enabled reports whether any key source is configured.
func (c JWTConfig) enabled() bool {
	return len(c.HMACSecrets) > 0 || len(c.PublicKeysPEM) > 0 || c.JWKSURL != ""
}

// withDefaults fills Leeway and MaxTTL.
func (c JWTConfig) withDefaults() JWTConfig {
	if c.Leeway == 0 {
		c.Leeway = DefaultLeeway
	}
	if c.MaxTTL == 0 {
		c.MaxTTL = DefaultMaxTTL
	}
	return c
}

// Config configures an Authenticator.
type Config struct {
	Agents   JWTConfig
	Humans   JWTConfig // SSO issuer; required in authenticated-read
	SiteMode string    // SiteModePublicRead (default) | SiteModeAuthenticatedRead
	APIKeys  *KeyStore // nil disables X-Agent-Api-Key
	// CacheSize bounds the verified-token cache in bytes: 0 = DefaultCacheSize,
	// negative disables it. Rounded up to whole MiB (bigcache's unit).
	CacheSize int
	Now       func() time.Time // clock for tests; nil = time.Now
	// Logger receives JWKS refresh failures; nil = zap.NewNop(). Nothing
	// secret is logged: only the JWKS URL and the error.
	Logger *zap.Logger
}

// withDefaults fills the zero values New documents.
func (c Config) withDefaults() Config {
	if c.SiteMode == "" {
		c.SiteMode = SiteModePublicRead
	}
	if c.CacheSize == 0 {
		c.CacheSize = DefaultCacheSize
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	return c
}

// validate checks everything New can check without the network.
func (c Config) validate() error {
	switch c.SiteMode {
	case SiteModePublicRead:
	case SiteModeAuthenticatedRead:
		if !c.Humans.enabled() {
			return errors.New("site mode authenticated-read needs a humans token issuer with keys")
		}
	default:
		return fmt.Errorf("unknown site mode %q, want %q or %q", c.SiteMode, SiteModePublicRead, SiteModeAuthenticatedRead)
	}
	if err := c.Agents.validate(); err != nil {
		return fmt.Errorf("agents: %w", err)
	}
	if err := c.Humans.validate(); err != nil {
		return fmt.Errorf("humans: %w", err)
	}
	// Answer routes send a bearer to the agent verifier when its unverified
	// iss is the agent issuer, so a shared issuer would hide every human.
	if c.Agents.enabled() && c.Humans.enabled() && c.Agents.Issuer == c.Humans.Issuer {
		return errors.New("agents and humans must use different token issuers")
	}
	return nil
}

// validate checks the fields that do not need key parsing.
func (c JWTConfig) validate() error {
	if !c.enabled() {
		return nil
	}
	if c.Issuer == "" {
		return errors.New("issuer is required when token keys are configured")
	}
	if len(c.Audience) == 0 {
		return errors.New("audience is required when token keys are configured")
	}
	for _, aud := range c.Audience {
		if aud == "" {
			return errors.New("audience must not contain an empty value")
		}
	}
	if c.Leeway < 0 {
		return errors.New("leeway must not be negative")
	}
	if c.MaxTTL < 0 {
		return errors.New("max ttl must not be negative")
	}
	if c.JWKSURL != "" {
		return c.validateJWKS()
	}
	return nil
}

// validateJWKS keeps a JWKS issuer asymmetric-only: a JWKS is public, so an
// HMAC algorithm verified against it (or next to it) is forgeable by anyone
// who can read it. The URL must be https, or http on loopback for tests and
// a sidecar identity provider.
func (c JWTConfig) validateJWKS() error {
	u, err := url.Parse(c.JWKSURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("jwks url must be an absolute http(s) url")
	}
	if !secureJWKSURL(u) {
		return errors.New("jwks url must use https (plain http is allowed for loopback hosts only)")
	}
	if len(c.HMACSecrets) > 0 {
		return errors.New("hmac secrets cannot be combined with a jwks url; use a separate issuer")
	}
	for _, alg := range c.Algorithms {
		if slices.Contains(hmacAlgorithms, alg) {
			return fmt.Errorf("algorithm %q cannot be used with a jwks url, which serves public keys only", alg)
		}
	}
	return nil
}

// secureJWKSURL accepts https, and http to 127.0.0.0/8, ::1 or localhost,
// where no network sits between the gate and the key server.
func secureJWKSURL(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
