package identity

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// HeaderAPIKey carries an agent API key.
const HeaderAPIKey = "X-Agent-Api-Key"

// Authenticator authenticates requests for the agent and answer routes. It is
// safe for concurrent use; Close releases the cache and JWKS refreshers.
type Authenticator struct {
	agents   *verifier // nil: agent bearer tokens disabled
	humans   *verifier // nil: SSO tokens disabled
	apiKeys  *KeyStore // nil: API keys disabled
	siteMode string
	now      func() time.Time
	cache    *tokenCache

	cancel    context.CancelFunc
	closeOnce sync.Once
}

// New validates cfg and builds an Authenticator. It never touches the
// network: a JWKS is fetched on first use.
func New(cfg Config) (*Authenticator, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cache, err := newTokenCache(cfg.CacheSize)
	if err != nil {
		return nil, fmt.Errorf("creating token cache: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Authenticator{apiKeys: cfg.APIKeys, siteMode: cfg.SiteMode, now: cfg.Now, cache: cache, cancel: cancel}
	deps := verifierDeps{ctx: ctx, cache: cache, now: cfg.Now, logger: cfg.Logger}
	if a.agents, err = newVerifier(cfg.Agents, TypeAgent, agentPrincipal, deps); err != nil {
		_ = a.Close()
		return nil, fmt.Errorf("agents: %w", err)
	}
	if a.humans, err = newVerifier(cfg.Humans, TypeHuman, humanPrincipal(cfg.Humans.RolesClaim), deps); err != nil {
		_ = a.Close()
		return nil, fmt.Errorf("humans: %w", err)
	}
	return a, nil
}

// Close stops JWKS refreshes and the cache's cleanup; safe to call twice.
func (a *Authenticator) Close() error {
	var err error
	a.closeOnce.Do(func() {
		a.cancel()
		err = a.cache.close()
	})
	return err
}

// AuthenticateAgent authenticates a call to /agent/tools/*: an API key in
// X-Agent-Api-Key or an agent bearer token, never both (ReadCredential).
func (a *Authenticator) AuthenticateAgent(r *http.Request) (Principal, error) {
	p, token, err := a.credential(r)
	switch {
	case err != nil || p != nil:
		return deref(p), err
	case token == "":
		return Principal{}, unauthorized(msgMissingCredential)
	case a.agents == nil:
		return Principal{}, unauthorized(msgBearerDisabled)
	}
	return a.agents.verify(r.Context(), token)
}

// credential reads the caller's one credential (ReadCredential): an API
// key yields the principal it authenticates, a bearer its token ("" when
// the request carries no credential). A refused credential is the answer:
// it never falls through to another credential or to anonymous.
func (a *Authenticator) credential(r *http.Request) (*Principal, string, error) {
	c, err := ReadCredential(r)
	switch {
	case err != nil:
		return nil, "", err
	case c.Kind == PresentedAPIKey:
		p, err := a.authenticateAPIKey(c.Value)
		return &p, "", err
	}
	return nil, c.Value, nil
}

func deref(p *Principal) Principal {
	if p == nil {
		return Principal{}
	}
	return *p
}

// AuthenticateAnswer authenticates a call to /answer/*. An API key or a
// bearer issued by the agent issuer is an agent; any other bearer must be a
// valid SSO token. Without a credential the caller is anonymous in
// public-read and refused in authenticated-read. A bad credential is refused
// in both modes.
func (a *Authenticator) AuthenticateAnswer(r *http.Request) (Principal, error) {
	p, token, err := a.credential(r)
	switch {
	case err != nil || p != nil:
		return deref(p), err
	case token != "":
		v := a.answerVerifier(token)
		if v == nil {
			return Principal{}, unauthorized(msgBearerDisabled)
		}
		return v.verify(r.Context(), token)
	case a.siteMode == SiteModePublicRead:
		return anonymousHuman(), nil
	default:
		return Principal{}, unauthorized(msgMissingCredential)
	}
}

// answerVerifier routes a bearer by its unverified iss. Routing only picks
// which verifier checks the token; each verifier checks iss itself.
func (a *Authenticator) answerVerifier(token string) *verifier {
	if a.agents != nil && (a.humans == nil || unverifiedIssuer(token) == a.agents.issuer) {
		return a.agents
	}
	return a.humans
}

func (a *Authenticator) authenticateAPIKey(key string) (Principal, error) {
	if a.apiKeys == nil {
		return Principal{}, unauthorized(msgAPIKeysDisabled)
	}
	rec, err := a.apiKeys.lookupAt(key, a.now())
	if err != nil {
		return Principal{}, err
	}
	return Principal{Type: TypeAgent, ID: rec.Agent, Credential: CredentialAPIKey, KeyID: rec.Prefix}, nil
}

// SingleHeader returns the one value of header name, trimmed. Repeated
// headers are refused (unauthorized): proxies disagree on which copy wins,
// so a WAF could check one copy while the gate uses the other. The session
// routes use it for X-Session-Token; credentials are read by ReadCredential.
func SingleHeader(r *http.Request, name string) (value string, present bool, err error) {
	values := r.Header.Values(name)
	switch len(values) {
	case 0:
		return "", false, nil
	case 1:
		return strings.TrimSpace(values[0]), true, nil
	default:
		return "", true, unauthorized(msgMultipleCredential)
	}
}

// agentPrincipal: agent tokens identify by sub only; their claims never
// carry grants.
func agentPrincipal(sub string, _ jwt.MapClaims) Principal {
	return Principal{Type: TypeAgent, ID: sub, Credential: CredentialJWT}
}

// humanPrincipal reads roles from rolesClaim (DefaultRolesClaim when empty).
func humanPrincipal(rolesClaim string) func(string, jwt.MapClaims) Principal {
	if rolesClaim == "" {
		rolesClaim = DefaultRolesClaim
	}
	return func(sub string, claims jwt.MapClaims) Principal {
		return Principal{Type: TypeHuman, ID: sub, Roles: rolesFrom(claims, rolesClaim), Credential: CredentialSSO}
	}
}
