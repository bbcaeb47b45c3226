package quota

import (
	"context"
	"errors"
	"testing"
	"time"
)

type failingStore struct{ err error }

func (s failingStore) Allow(context.Context, string, Limit) (Result, error) {
	return Result{}, s.err
}

// TestFallbackStillLimitsWhileThePrimaryIsDown: a Redis outage neither
// refuses every call nor lifts the limit: the gate's own budget counts.
func TestFallbackStillLimitsWhileThePrimaryIsDown(t *testing.T) {
	var told int
	f := &Fallback{Primary: failingStore{errors.New("redis: connection refused")}, Local: NewMemory(), OnFallback: func(error) { told++ }}
	l := Limit{Requests: 2, Window: time.Minute}
	for i, want := range []bool{true, true, false} {
		res, err := f.Allow(context.Background(), "agent:a:search", l)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if res.Allowed != want {
			t.Fatalf("call %d allowed=%v, want %v", i, res.Allowed, want)
		}
	}
	if !f.Degraded() || told != 1 {
		t.Fatalf("degraded=%v told=%d", f.Degraded(), told)
	}
}

// TestFallbackUsesThePrimaryWhenItAnswers: with Redis up, its answer is
// the answer, and the local budgets are not touched.
func TestFallbackUsesThePrimaryWhenItAnswers(t *testing.T) {
	primary, local := NewMemory(), NewMemory()
	f := &Fallback{Primary: primary, Local: local}
	l := Limit{Requests: 1, Window: time.Minute}
	if res, _ := f.Allow(context.Background(), "k", l); !res.Allowed {
		t.Fatal("first call refused")
	}
	if res, _ := f.Allow(context.Background(), "k", l); res.Allowed {
		t.Fatal("the primary's spent budget was not the answer")
	}
	if res, _ := local.Allow(context.Background(), "k", l); !res.Allowed {
		t.Fatal("the local budget was spent while the primary answered")
	}
	if f.Degraded() {
		t.Fatal("degraded while the primary answers")
	}
}
