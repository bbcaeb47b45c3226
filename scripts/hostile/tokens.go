package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// The identities the default Caddyfile and rego/data.json know.
const (
	agentIssuer     = "wikigate-dev"
	audience        = "wikigate"
	codingAgent     = "kunora-coding-agent"   // search, ask, get_page, get_context, create_feedback
	maintainerAgent = "docs-maintainer-agent" // also create_improvement_task
)

// devJWTSecret is the gate's public development default (the
// `./wikigate` command's). It is copied rather than imported, which would
// link Caddy into this client; preflight checks that the gate accepts the
// tokens it signs.
const devJWTSecret = "wikigate-dev-jwt-secret-UNSAFE-for-production"

type tokens struct {
	coding, maintainer string
	secret             []byte
}

// devSecret is what `./wikigate` gives the gate: WIKIGATE_DEV_JWT_SECRET,
// else the public development default.
func devSecret() []byte {
	if s := os.Getenv("WIKIGATE_DEV_JWT_SECRET"); s != "" {
		return []byte(s)
	}
	return []byte(devJWTSecret)
}

func mintTokens() (tokens, error) {
	t := tokens{secret: devSecret()}
	var err error
	if t.coding, err = t.agent(codingAgent, time.Now()); err != nil {
		return t, err
	}
	t.maintainer, err = t.agent(maintainerAgent, time.Now())
	return t, err
}

// agent mints an agent token issued at issuedAt, valid for an hour after.
func (t tokens) agent(id string, issuedAt time.Time) (string, error) {
	return identity.MintHS256(identity.MintOptions{
		Secret: t.secret, Issuer: agentIssuer, Audience: []string{audience}, Subject: id,
		TTL: time.Hour, Now: func() time.Time { return issuedAt },
	})
}

// preflight makes sure the gate accepts the script's tokens, so that a
// refused attack is the gate's doing and not a wrong secret.
func (t *target) preflight(ctx context.Context) error {
	r := t.post(ctx, "/agent/tools/search", bearer(t.tokens.coding), []byte(`{"question":"agent memory"}`))
	if r.status != http.StatusOK {
		return fmt.Errorf("the gate at %s refuses a valid %s token (%s): give the script the gate's WIKIGATE_DEV_JWT_SECRET", t.base, codingAgent, r)
	}
	return nil
}
