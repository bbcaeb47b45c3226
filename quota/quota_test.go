package quota_test

import (
	"context"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/redisconn"
)

// spend takes n calls from key and reports how many were allowed and the
// last result.
func spend(t *testing.T, s quota.Store, key string, l quota.Limit, n int) (allowed int, last quota.Result) {
	t.Helper()
	for range n {
		res, err := s.Allow(context.Background(), key, l)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed {
			allowed++
		}
		last = res
	}
	return allowed, last
}

func checkBudget(t *testing.T, s quota.Store) {
	l := quota.Limit{Requests: 3, Window: time.Minute}
	if got, last := spend(t, s, "a", l, 3); got != 3 || last.Remaining != 0 {
		t.Fatalf("first 3 of 3/min: %d allowed, remaining %d", got, last.Remaining)
	}
	got, last := spend(t, s, "a", l, 1)
	if got != 0 || last.RetryAfter <= 0 || last.RetryAfter > 20*time.Second {
		t.Fatalf("4th of 3/min: allowed %d, retry after %v (want about 20s)", got, last.RetryAfter)
	}
	if got, _ := spend(t, s, "b", l, 3); got != 3 {
		t.Fatalf("another key has its own budget: %d of 3 allowed", got)
	}
}

func TestMemoryBudget(t *testing.T) { checkBudget(t, quota.NewMemory()) }

func TestRedisBudgetIsShared(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	checkBudget(t, quota.NewRedis(rdb, "t1:"))
	// A second store (another gate) on the same Redis sees the spent budget.
	other := quota.NewRedis(rdb, "t1:")
	if got, _ := spend(t, other, "a", quota.Limit{Requests: 3, Window: time.Minute}, 1); got != 0 {
		t.Fatal("a second gate's store allowed a call from a spent shared budget")
	}
}

func TestRedisDownIsAnError(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL(), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	srv.Stop()
	if _, err := quota.NewRedis(rdb, "t2:").Allow(context.Background(), "a", quota.Limit{Requests: 3, Window: time.Minute}); err == nil {
		t.Fatal("Allow with Redis down returned no error; the caller could not fail closed")
	}
}
