package quota

import (
	"context"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis keeps budgets in Redis with redis_rate's GCRA: one Lua script per
// call reads and updates a single timestamp per key atomically, so gates
// sharing the Redis cannot both take the last call, and a key costs one
// small string that expires once the budget is full again.
type Redis struct {
	lim    *redis_rate.Limiter
	prefix string
}

// NewRedis keeps budgets under prefix+"rl:" in rdb.
func NewRedis(rdb redis.UniversalClient, prefix string) *Redis {
	return &Redis{lim: redis_rate.NewLimiter(rdb), prefix: prefix + "rl:"}
}

// Allow implements Store.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	res, err := r.lim.Allow(ctx, r.prefix+key, redis_rate.Limit{Rate: l.Requests, Burst: l.Requests, Period: l.Window})
	if err != nil {
		return Result{}, err
	}
	return Result{Allowed: res.Allowed > 0, Remaining: res.Remaining, RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter}, nil
}
