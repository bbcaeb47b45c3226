package gateway

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// A decision answered without waiting (the engine's cache) sees a live
// context that carries the parent's values and ends as canceled.
func TestLazyDeadlineUnarmed(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	ctx := withLazyDeadline(parent, time.Minute)
	cancel := ctx.release
	if ctx.Err() != nil || ctx.Value(ctxKey{}) != "v" {
		t.Fatalf("Err %v, Value %v", ctx.Err(), ctx.Value(ctxKey{}))
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 50*time.Second {
		t.Fatalf("Deadline %v %v", d, ok)
	}
	cancel()
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) || ctx.Value(ctxKey{}) != "v" {
		t.Fatalf("after cancel: Err %v, Value %v", ctx.Err(), ctx.Value(ctxKey{}))
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Done is open after cancel")
	}
}

// Waited on (an evaluation), it ends at its deadline like
// context.WithTimeout, and context.AfterFunc fires.
func TestLazyDeadlineArmedEndsAtDeadline(t *testing.T) {
	ctx := withLazyDeadline(context.Background(), 20*time.Millisecond)
	cancel := ctx.release
	defer cancel()
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(fired) })
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done did not close at the deadline")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v", ctx.Err())
	}
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("AfterFunc did not fire")
	}
	cancel()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err after cancel = %v, want it to stay DeadlineExceeded", ctx.Err())
	}
}

// Past its deadline without anyone waiting, Err says so, and Done is
// closed when asked for.
func TestLazyDeadlinePassedUnarmed(t *testing.T) {
	ctx := withLazyDeadline(context.Background(), time.Millisecond)
	cancel := ctx.release
	defer cancel()
	time.Sleep(5 * time.Millisecond)
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v", ctx.Err())
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done is open past the deadline")
	}
	cancel()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err after cancel = %v", ctx.Err())
	}
}

// The parent's end is its end, armed or not, and an earlier parent
// deadline is its deadline.
func TestLazyDeadlineFollowsParent(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	unarmed := withLazyDeadline(parent, time.Minute)
	defer unarmed.release()
	armed := withLazyDeadline(parent, time.Minute)
	defer armed.release()
	done := armed.Done()
	cancelParent()
	if !errors.Is(unarmed.Err(), context.Canceled) {
		t.Fatalf("unarmed Err = %v", unarmed.Err())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("armed Done did not close with the parent")
	}
	if !errors.Is(armed.Err(), context.Canceled) {
		t.Fatalf("armed Err = %v", armed.Err())
	}

	short, c3 := context.WithTimeout(context.Background(), time.Second)
	defer c3()
	ctx := withLazyDeadline(short, time.Hour)
	defer ctx.release()
	pd, _ := short.Deadline()
	if d, _ := ctx.Deadline(); !d.Equal(pd) {
		t.Fatalf("Deadline %v, want the parent's %v", d, pd)
	}
}

// Concurrent waiters and a concurrent cancel (go test -race).
func TestLazyDeadlineConcurrent(t *testing.T) {
	ctx := withLazyDeadline(context.Background(), time.Minute)
	cancel := ctx.release
	waiting := make(chan struct{}, 4)
	for range 4 {
		go func() {
			<-ctx.Done()
			_ = ctx.Err()
			waiting <- struct{}{}
		}()
	}
	time.Sleep(time.Millisecond)
	cancel()
	for range 4 {
		select {
		case <-waiting:
		case <-time.After(5 * time.Second):
			t.Fatal("a waiter did not see the cancel")
		}
	}
}

func BenchmarkDecisionContext(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("WithTimeout", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ctx, c := context.WithTimeout(parent, time.Second)
			_ = ctx.Err()
			c()
		}
	})
	b.Run("lazy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ctx := withLazyDeadline(parent, time.Second)
			_ = ctx.Err()
			c := ctx.release
			c()
		}
	})
}
