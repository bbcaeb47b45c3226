package caddymodule

import (
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/identity"
)

// DevJWTSecret is the public development HMAC secret that `./wikigate`
// puts in WIKIGATE_DEV_JWT_SECRET when it is unset. Anyone can read it, so
// anyone can mint tokens a gate holding it accepts.
const DevJWTSecret = "wikigate-dev-jwt-secret-UNSAFE-for-production"

// warnDevSecret warns, once per provisioned config, for each verifier that
// actually holds the development secret: only then can anyone mint tokens
// this gate accepts. A Caddyfile that never uses the secret gets no
// warning, whatever the environment holds.
func (h *Handler) warnDevSecret(verifiers map[string]identity.JWTConfig) {
	for name, v := range verifiers {
		for kid, secret := range v.HMACSecrets {
			if string(secret) == DevJWTSecret {
				h.logger.Warn("a token verifier holds the public development JWT secret: anyone can mint tokens this gate accepts; set WIKIGATE_DEV_JWT_SECRET or configure your own keys (unsafe for production)",
					zap.String("verifier", name), zap.String("kid", kid))
			}
		}
	}
}
