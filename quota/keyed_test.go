package quota

import (
	"sync"
	"testing"
	"time"
)

func fixed(k *Keyed, t *time.Time) { k.mem.now = func() time.Time { return *t } }

func TestBurstThenRefusedWithWait(t *testing.T) {
	at := time.Unix(1000, 0)
	k := NewKeyed(3, 10*time.Second)
	fixed(k, &at)
	for i := range 3 {
		if res := k.Allow("a"); !res.Allowed {
			t.Fatalf("call %d refused inside the burst", i+1)
		}
	}
	res := k.Allow("a")
	if res.Allowed || res.RetryAfter != 10*time.Second || res.Remaining != 0 {
		t.Fatalf("past the burst: %+v, want refused with 10s", res)
	}
	at = at.Add(4 * time.Second)
	if res := k.Allow("a"); res.RetryAfter != 6*time.Second {
		t.Fatalf("4s later the wait is %v, want 6s", res.RetryAfter)
	}
	at = at.Add(6 * time.Second)
	if res := k.Allow("a"); !res.Allowed {
		t.Fatal("a refilled call is refused")
	}
}

func TestKeysHaveTheirOwnBudget(t *testing.T) {
	at := time.Unix(1000, 0)
	k := NewKeyed(1, time.Minute)
	fixed(k, &at)
	if res := k.Allow("a"); !res.Allowed {
		t.Fatal("a refused")
	}
	if res := k.Allow("b"); !res.Allowed {
		t.Fatal("b refused because a spent its budget")
	}
}

func TestRefillNeverExceedsBurst(t *testing.T) {
	at := time.Unix(1000, 0)
	k := NewKeyed(2, time.Second)
	fixed(k, &at)
	k.Allow("a")
	at = at.Add(time.Hour)
	n := 0
	for {
		if !k.Allow("a").Allowed {
			break
		}
		n++
	}
	if n != 2 {
		t.Fatalf("after an hour %d calls passed, want the burst of 2", n)
	}
}

func TestConcurrentCallsShareTheBudget(t *testing.T) {
	k := NewKeyed(50, time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k.Allow("k").Allowed {
				mu.Lock()
				passed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if passed != 50 {
		t.Fatalf("%d of 200 concurrent calls passed, want 50", passed)
	}
}
