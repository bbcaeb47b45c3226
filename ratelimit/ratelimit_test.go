package ratelimit

import (
	"sync"
	"testing"
	"time"
)

func fixed(l *Limiter, t *time.Time) { l.now = func() time.Time { return *t } }

func TestBurstThenRefusedWithWait(t *testing.T) {
	at := time.Unix(1000, 0)
	l := New(3, 10*time.Second)
	fixed(l, &at)
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("call %d refused inside the burst", i+1)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait != 10*time.Second {
		t.Fatalf("past the burst: ok=%v wait=%v, want refused with 10s", ok, wait)
	}
	at = at.Add(4 * time.Second)
	if _, wait := l.Allow("a"); wait != 6*time.Second {
		t.Fatalf("4s later the wait is %v, want 6s", wait)
	}
	at = at.Add(6 * time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a refilled call is refused")
	}
}

func TestKeysHaveTheirOwnBudget(t *testing.T) {
	at := time.Unix(1000, 0)
	l := New(1, time.Minute)
	fixed(l, &at)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a refused")
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("b refused because a spent its budget")
	}
}

func TestRefillNeverExceedsBurst(t *testing.T) {
	at := time.Unix(1000, 0)
	l := New(2, time.Second)
	fixed(l, &at)
	l.Allow("a")
	at = at.Add(time.Hour)
	n := 0
	for {
		ok, _ := l.Allow("a")
		if !ok {
			break
		}
		n++
	}
	if n != 2 {
		t.Fatalf("after an hour %d calls passed, want the burst of 2", n)
	}
}

func TestConcurrentCallsShareTheBudget(t *testing.T) {
	l := New(50, time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _ := l.Allow("k"); ok {
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
