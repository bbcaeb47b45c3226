package caddymodule

import (
	"fmt"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/ragflow"
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
	// MaxTTL is the longest lifetime a token may claim (exp − iat, or
	// exp − now without iat). Default 24h.
	MaxTTL caddy.Duration `json:"max_ttl,omitempty"`
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

// RAGFlowConfig configures the RAGFlow backend and how answers are built.
type RAGFlowConfig struct {
	// URL of the RAGFlow server, e.g. http://127.0.0.1:9380.
	URL string `json:"url,omitempty"`
	// APIKey is a RAGFlow API key ({env.NAME} recommended).
	APIKey string `json:"api_key,omitempty"`
	// RetrievalTimeout bounds one retrieval (and the health probe).
	// Default 5s: a stalled RAGFlow fails the call fast.
	RetrievalTimeout caddy.Duration `json:"retrieval_timeout,omitempty"`
	// FirstByteTimeout bounds a generation until its first byte. Default 30s.
	FirstByteTimeout caddy.Duration `json:"first_byte_timeout,omitempty"`
	// IdleTimeout bounds a generation's silence between stream events once
	// it has started. Default 15s.
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`
	// Timeout, when set, also caps any one RAGFlow call in total. Default
	// none: a generation that keeps streaming is bounded by the handler's
	// backend_timeout only.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// Stream asks RAGFlow for SSE (its default) rather than one JSON body.
	// Default true.
	Stream *bool `json:"stream,omitempty"`
	// PageSize is how many chunks an answer is built from. Default 8.
	PageSize int `json:"page_size,omitempty"`
	// SimilarityThreshold drops weaker chunks. Default RAGFlow's 0.2.
	SimilarityThreshold float64 `json:"similarity_threshold,omitempty"`
	// HighScore and MediumScore are the confidence thresholds on the best
	// cited chunk's score. Defaults 0.5 and 0.3.
	HighScore   float64 `json:"high_score,omitempty"`
	MediumScore float64 `json:"medium_score,omitempty"`
	// SupportThreshold is the support score (token overlap, 0..1) a
	// sentence needs against the chunk it cites to be shown; below it the
	// sentence is treated as uncited and dropped. Default 0.5.
	SupportThreshold float64 `json:"support_threshold,omitempty"`
	// MinSupported is the share of a generated answer (0..1, by
	// characters) that must be supported, or the answer is withheld as a
	// no-answer. Default 0.5.
	MinSupported float64 `json:"min_supported,omitempty"`
	// EmptyResponses are extra texts meaning "nothing found" (e.g. your
	// assistants' empty_response); RAGFlow's defaults always count.
	EmptyResponses []string `json:"empty_responses,omitempty"`
	// Retrieval is the retrieval { ... } block: multi-query retrieval,
	// RAGFlow's rerank and keyword options, the question coverage an
	// answer needs.
	Retrieval *RetrievalConfig `json:"retrieval,omitempty"`
}

func (r *RAGFlowConfig) clientConfig(repl *caddy.Replacer) ragflow.Config {
	return ragflow.Config{
		URL:              repl.ReplaceAll(r.URL, ""),
		APIKey:           repl.ReplaceAll(r.APIKey, ""),
		RetrievalTimeout: time.Duration(r.RetrievalTimeout),
		FirstByteTimeout: time.Duration(r.FirstByteTimeout),
		IdleTimeout:      time.Duration(r.IdleTimeout),
		Timeout:          time.Duration(r.Timeout),
	}
}

func (r *RAGFlowConfig) answerConfig() gateway.AnswerConfig {
	a := gateway.AnswerConfig{
		Stream:              r.Stream == nil || *r.Stream,
		PageSize:            r.PageSize,
		SimilarityThreshold: r.SimilarityThreshold,
		HighScore:           r.HighScore,
		MediumScore:         r.MediumScore,
		SupportThreshold:    r.SupportThreshold,
		MinSupported:        r.MinSupported,
		EmptyResponses:      r.EmptyResponses,
	}
	r.Retrieval.apply(&a)
	return a
}

// index is the configured index uid, "wiki_pages" by default.
func (m *MeiliConfig) index() string {
	if m.Index == "" {
		return "wiki_pages"
	}
	return m.Index
}

func (m *MeiliConfig) clientConfig(repl *caddy.Replacer) meili.Config {
	index := m.index()
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
	h.warnDevSecret(map[string]identity.JWTConfig{"agent_jwt": cfg.Agents, "human_jwt": cfg.Humans})
	if h.APIKeysFile != "" {
		logger := identity.WithKeyStoreLogger(h.logger.Named("apikeys"))
		if cfg.APIKeys, err = identity.OpenKeyStore(repl.ReplaceAll(h.APIKeysFile, ""), logger); err != nil {
			return nil, fmt.Errorf("api_keys_file: %w", err)
		}
	}
	h.keyStore = cfg.APIKeys
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
		MaxTTL:     time.Duration(j.MaxTTL),
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
