package quota

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisTokens keeps token budgets in Redis, so every gate sharing it
// charges and checks the same budgets: one counter per caller and window,
// expiring when its window ends.
type RedisTokens struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisTokens keeps token budgets under prefix+"tok:" in rdb.
func NewRedisTokens(rdb redis.UniversalClient, prefix string) *RedisTokens {
	return &RedisTokens{rdb: rdb, prefix: prefix + "tok:"}
}

// checkScript returns the tokens charged in the open window and the
// milliseconds until it ends (0 and 0 when none is open).
var checkScript = redis.NewScript(`
local used = tonumber(redis.call("GET", KEYS[1]) or "0")
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then ttl = 0 end
return {used, ttl}
`)

// chargeScript adds ARGV[1] tokens and, when that opened the window (or
// the counter has somehow lost its expiry), ends it ARGV[2] ms from now:
// one script, so two gates charging at once cannot both open a window.
var chargeScript = redis.NewScript(`
local used = redis.call("INCRBY", KEYS[1], ARGV[1])
if redis.call("PTTL", KEYS[1]) < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return used
`)

// CheckTokens implements TokenStore.
func (r *RedisTokens) CheckTokens(ctx context.Context, key string, b TokenBudget) (TokenResult, error) {
	vals, err := checkScript.Run(ctx, r.rdb, []string{r.prefix + windowKey(key, b)}).Int64Slice()
	if err != nil {
		return TokenResult{}, err
	}
	if len(vals) != 2 {
		return TokenResult{}, redis.Nil
	}
	return checkResult(b, vals[0], time.Duration(vals[1])*time.Millisecond), nil
}

// ChargeTokens implements TokenStore.
func (r *RedisTokens) ChargeTokens(ctx context.Context, key string, b TokenBudget, n int64) error {
	if n <= 0 {
		return nil
	}
	ms := max(int64(b.Window/time.Millisecond), 1)
	return chargeScript.Run(ctx, r.rdb, []string{r.prefix + windowKey(key, b)}, n, ms).Err()
}
