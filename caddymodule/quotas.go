package caddymodule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/redisconn"
)

// redisQuotas is the pooled Redis client of the shared rate limits.
type redisQuotas struct{ rdb *redis.Client }

func (r redisQuotas) Destruct() error { return r.rdb.Close() }

// provisionQuotas keeps the policy's rate-limit and token budgets in Redis when the
// redis block is configured, so every gate sharing that Redis counts
// against the same budgets; otherwise the gateway keeps them in process.
func (h *Handler) provisionQuotas(repl *caddy.Replacer, deps *gateway.Deps) error {
	if h.Redis == nil {
		return nil
	}
	conn := h.Redis.connConfig(repl)
	sum := sha256.Sum256(fmt.Appendf(nil, "%#v", conn))
	key := "quota:redis:" + hex.EncodeToString(sum[:])
	routeRedisLogs(h.logger)
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		rdb, err := redisconn.New(conn)
		if err != nil {
			return nil, err
		}
		return redisQuotas{rdb}, nil
	})
	if err != nil {
		return fmt.Errorf("rate limits: %w", err)
	}
	h.poolKeys = append(h.poolKeys, key)
	logger := h.logger
	deps.Quotas = &quota.Fallback{
		Primary: quota.NewRedis(v.(redisQuotas).rdb, conn.Prefix()),
		Local:   quota.NewMemory(),
		OnFallback: func(err error) {
			logger.Warn("rate-limit store unreachable; counting this gate's calls locally until it is back", zap.Error(err))
		},
	}
	deps.Tokens = &quota.FallbackTokens{
		Primary: quota.NewRedisTokens(v.(redisQuotas).rdb, conn.Prefix()),
		Local:   quota.NewMemoryTokens(),
		OnFallback: func(err error) {
			logger.Warn("token budget store unreachable; counting this gate's tokens locally until it is back", zap.Error(err))
		},
	}
	return nil
}
