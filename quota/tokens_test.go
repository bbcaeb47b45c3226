package quota_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/redisconn"
)

func check(t *testing.T, s quota.TokenStore, key string, b quota.TokenBudget) quota.TokenResult {
	t.Helper()
	res, err := s.CheckTokens(context.Background(), key, b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func charge(t *testing.T, s quota.TokenStore, key string, b quota.TokenBudget, n int64) {
	t.Helper()
	if err := s.ChargeTokens(context.Background(), key, b, n); err != nil {
		t.Fatal(err)
	}
}

// checkTokenBudget: a budget is open until what was charged reaches it
// (the call crossing it was answered), then refused until its window ends;
// another key has its own.
func checkTokenBudget(t *testing.T, s quota.TokenStore) {
	b := quota.TokenBudget{Tokens: 1000, Window: time.Hour}
	if res := check(t, s, "a", b); !res.Allowed || res.Used != 0 || res.Remaining(b) != 1000 {
		t.Fatalf("a fresh budget: %+v", res)
	}
	charge(t, s, "a", b, 600)
	if res := check(t, s, "a", b); !res.Allowed || res.Used != 600 || res.Remaining(b) != 400 {
		t.Fatalf("after 600 of 1000: %+v", res)
	}
	charge(t, s, "a", b, 700) // one call may go past the budget
	res := check(t, s, "a", b)
	if res.Allowed || res.Used != 1300 || res.Remaining(b) != 0 {
		t.Fatalf("after 1300 of 1000: %+v, want refused", res)
	}
	if res.ResetAfter <= 59*time.Minute || res.ResetAfter > time.Hour {
		t.Fatalf("the window opened by the first charge ends in %v, want about an hour", res.ResetAfter)
	}
	if res := check(t, s, "b", b); !res.Allowed {
		t.Fatalf("another key's budget is its own: %+v", res)
	}
}

func TestMemoryTokenBudget(t *testing.T) { checkTokenBudget(t, quota.NewMemoryTokens()) }

// A window ends: the budget is whole again.
func TestMemoryTokenWindowEnds(t *testing.T) {
	s := quota.NewMemoryTokens()
	b := quota.TokenBudget{Tokens: 10, Window: 50 * time.Millisecond}
	charge(t, s, "a", b, 10)
	if check(t, s, "a", b).Allowed {
		t.Fatal("a spent budget was allowed")
	}
	time.Sleep(60 * time.Millisecond)
	if res := check(t, s, "a", b); !res.Allowed || res.Used != 0 {
		t.Fatalf("after the window: %+v", res)
	}
}

func TestRedisTokenBudgetIsShared(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	checkTokenBudget(t, quota.NewRedisTokens(rdb, "t1:"))
	// A second store (another gate) on the same Redis sees the spent budget.
	other := quota.NewRedisTokens(rdb, "t1:")
	if res := check(t, other, "a", quota.TokenBudget{Tokens: 1000, Window: time.Hour}); res.Allowed || res.Used != 1300 {
		t.Fatalf("a second gate's store: %+v, want the 1300 tokens the first charged", res)
	}
}

func TestRedisTokensDownIsAnError(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL(), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	srv.Stop()
	if _, err := quota.NewRedisTokens(rdb, "t2:").CheckTokens(context.Background(), "a", quota.TokenBudget{Tokens: 3, Window: time.Minute}); err == nil {
		t.Fatal("CheckTokens with Redis down returned no error; the caller could not fail closed")
	}
}

type failingTokens struct{ err error }

func (s failingTokens) CheckTokens(context.Context, string, quota.TokenBudget) (quota.TokenResult, error) {
	return quota.TokenResult{}, s.err
}

func (s failingTokens) ChargeTokens(context.Context, string, quota.TokenBudget, int64) error {
	return s.err
}

// While Redis is down the gate's own budget counts: charges are kept
// locally and checks read them; the outage is told once.
func TestFallbackTokensStillLimitWhileThePrimaryIsDown(t *testing.T) {
	var told int
	f := &quota.FallbackTokens{Primary: failingTokens{errors.New("redis: connection refused")}, Local: quota.NewMemoryTokens(), OnFallback: func(error) { told++ }}
	b := quota.TokenBudget{Tokens: 100, Window: time.Hour}
	charge(t, f, "a", b, 100)
	if res := check(t, f, "a", b); res.Allowed || res.Used != 100 {
		t.Fatalf("locally counted budget: %+v", res)
	}
	if told != 1 {
		t.Fatalf("told %d times of one outage", told)
	}
}
