package caddymodule

import (
	"fmt"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
)

// JWTConfig configures one token issuer. Secrets may be given as
// {env.NAME} placeholders, expanded at provision time so they never appear
// in the adapted JSON config.
type JWTConfig struct {
	// Issuer is the required `iss` claim.
	Issuer string `json:"issuer,omitempty"`
	// Audience lists accepted `aud` values; a token must carry one.
	Audience []string `json:"audience,omitempty"`
	// Algorithms is the allow-list; default: what the configured keys verify.
	Algorithms []string `json:"algorithms,omitempty"`
	// HMACSecrets maps kid → shared secret ("" = tokens without kid).
	HMACSecrets map[string]string `json:"hmac_secrets,omitempty"`
	// PublicKeyFiles maps kid → PEM file with an RSA, ECDSA or Ed25519 key.
	PublicKeyFiles map[string]string `json:"public_key_files,omitempty"`
	// JWKSURL is fetched on first use and refreshed on unknown kid.
	JWKSURL string `json:"jwks_url,omitempty"`
	// Leeway allows clock skew on exp/nbf/iat. Default 30s.
	Leeway caddy.Duration `json:"leeway,omitempty"`
	// RolesClaim names the claim carrying a human's roles. Default "roles".
	RolesClaim string `json:"roles_claim,omitempty"`
}

// MeiliConfig configures the Meilisearch backend.
type MeiliConfig struct {
	// URL of the Meilisearch server, e.g. http://127.0.0.1:7700.
	URL string `json:"url,omitempty"`
	// APIKey is the master key or a search key ({env.NAME} recommended).
	APIKey string `json:"api_key,omitempty"`
	// Index is the page index uid. Default "wiki_pages".
	Index string `json:"index,omitempty"`
	// Timeout bounds one Meilisearch call. Default 5s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// TenantKey and TenantKeyUID, when set, make the gate mint a tenant
	// token per call (signed with this search key) so Meilisearch enforces
	// the decided scope as well.
	TenantKey    string `json:"tenant_key,omitempty"`
	TenantKeyUID string `json:"tenant_key_uid,omitempty"`
}

func (m *MeiliConfig) clientConfig(repl *caddy.Replacer) meili.Config {
	index := m.Index
	if index == "" {
		index = "wiki_pages"
	}
	return meili.Config{
		URL:          repl.ReplaceAll(m.URL, ""),
		APIKey:       repl.ReplaceAll(m.APIKey, ""),
		Index:        index,
		Timeout:      time.Duration(m.Timeout),
		TenantKey:    repl.ReplaceAll(m.TenantKey, ""),
		TenantKeyUID: repl.ReplaceAll(m.TenantKeyUID, ""),
	}
}

func (h *Handler) buildAuthenticator(repl *caddy.Replacer) (*identity.Authenticator, error) {
	cfg := identity.Config{SiteMode: h.SiteMode, Logger: h.logger.Named("identity")}
	var err error
	if cfg.Agents, err = h.AgentJWT.identityConfig(repl); err != nil {
		return nil, fmt.Errorf("agent_jwt: %w", err)
	}
	if cfg.Humans, err = h.HumanJWT.identityConfig(repl); err != nil {
		return nil, fmt.Errorf("human_jwt: %w", err)
	}
	if h.APIKeysFile != "" {
		if cfg.APIKeys, err = identity.OpenKeyStore(repl.ReplaceAll(h.APIKeysFile, "")); err != nil {
			return nil, fmt.Errorf("api_keys_file: %w", err)
		}
	}
	return identity.New(cfg)
}

func (j *JWTConfig) identityConfig(repl *caddy.Replacer) (identity.JWTConfig, error) {
	if j == nil {
		return identity.JWTConfig{}, nil
	}
	out := identity.JWTConfig{
		Issuer:     j.Issuer,
		Audience:   j.Audience,
		Algorithms: j.Algorithms,
		JWKSURL:    repl.ReplaceAll(j.JWKSURL, ""),
		Leeway:     time.Duration(j.Leeway),
		RolesClaim: j.RolesClaim,
	}
	for kid, secret := range j.HMACSecrets {
		s := repl.ReplaceAll(secret, "")
		if s == "" {
			return out, fmt.Errorf("hmac secret for kid %q is empty (is its environment variable set?)", kid)
		}
		if out.HMACSecrets == nil {
			out.HMACSecrets = map[string][]byte{}
		}
		out.HMACSecrets[kid] = []byte(s)
	}
	for kid, file := range j.PublicKeyFiles {
		pem, err := os.ReadFile(repl.ReplaceAll(file, ""))
		if err != nil {
			return out, fmt.Errorf("public key for kid %q: %w", kid, err)
		}
		if out.PublicKeysPEM == nil {
			out.PublicKeysPEM = map[string][]byte{}
		}
		out.PublicKeysPEM[kid] = pem
	}
	return out, nil
}
