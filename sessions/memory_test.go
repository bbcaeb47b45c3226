package sessions

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is the store's clock, moved by tests.
type fakeClock struct{ now atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.set(t)
	return c
}

func (c *fakeClock) set(t time.Time)     { c.now.Store(t.UnixNano()) }
func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.now.Load()).UTC() }
func (c *fakeClock) add(d time.Duration) { c.set(c.Now().Add(d)) }

func newStore(t testing.TB, cfg MemoryConfig) *MemoryStore {
	t.Helper()
	m, err := NewMemoryStore(cfg)
	if err != nil {
		t.Fatalf("NewMemoryStore: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 4 << 20, Now: newClock(t0).Now})
	s, _ := newSession(t, alice, Limits{MaxTurns: 1})
	s.AddTurn(turn("q1 <html> & \"quotes\"", 10, citation(1), citation(2)))
	s.AddTurn(Turn{Question: "会话过期后追问?", NoAnswer: true, NoAnswerReason: "no_evidence", At: t0.Add(time.Second), Tokens: 4})
	if err := m.Create(ctx, s); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got, err := m.Get(ctx, s.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Get = %+v\nwant %+v", got, s)
	}

	got.Turns[0].Question = "changed"
	got.Scope.Paths[0] = "changed"
	again, _ := m.Get(ctx, s.ID)
	if again.Turns[0].Question == "changed" || again.Scope.Paths[0] == "changed" {
		t.Errorf("Get returned the stored session, not a copy")
	}
}

func TestStoreNotFound(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 4 << 20})
	for _, id := range []string{"0123456789abcdef0123456789abcdef", "", "../etc/passwd", strings.Repeat("A", 32)} {
		if _, err := m.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
		if err := m.Update(ctx, id, func(*Session) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("Update(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestStoreCreateRefuses(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{TTL: 10 * time.Minute, MaxBytes: 4 << 20, Now: newClock(t0).Now})
	s, _ := newSession(t, alice, Limits{}) // lives 30m, the store is sized for 10m
	if err := m.Create(ctx, s); err == nil {
		t.Errorf("Create of a session outliving the store ttl succeeded")
	}
	short, _, _ := New(alice, scope, Limits{}, m.TTL(), t0)
	if err := m.Create(ctx, short); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := m.Create(ctx, short); err == nil {
		t.Errorf("second Create of one id succeeded")
	}
}

func TestStoreUpdate(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 4 << 20, Now: newClock(t0).Now})
	s, _ := newSession(t, alice, Limits{})
	if err := m.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := m.Update(ctx, s.ID, func(s *Session) error { s.AddTurn(turn("q1", 10)); return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
	refused := errors.New("refused")
	err := m.Update(ctx, s.ID, func(s *Session) error { s.AddTurn(turn("q2", 10)); return refused })
	if !errors.Is(err, refused) {
		t.Errorf("Update = %v, want fn's error", err)
	}
	if err := m.Update(ctx, s.ID, func(s *Session) error { s.ID = strings.Repeat("0", 32); return nil }); err == nil {
		t.Errorf("Update changing the id succeeded")
	}
	got, _ := m.Get(ctx, s.ID)
	if qs := questions(got); len(qs) != 1 || qs[0] != "q1" {
		t.Errorf("turns = %v, want only q1", qs)
	}
}

// Concurrent follow-ups on one session each append a turn; run with -race.
func TestStoreUpdateSerializesPerSession(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 4 << 20, Now: newClock(t0).Now})
	const workers, perWorker = 8, 10
	s, _ := newSession(t, alice, Limits{MaxTurns: workers * perWorker, MaxContextTokens: 1 << 20})
	other, _ := newSession(t, kgent, Limits{})
	for _, x := range []*Session{s, other} {
		if err := m.Create(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range perWorker {
				err := m.Update(ctx, s.ID, func(s *Session) error { s.AddTurn(turn("q", 1)); return nil })
				if err != nil {
					t.Errorf("Update: %v", err)
				}
				if _, err := m.Get(ctx, other.ID); err != nil {
					t.Errorf("Get: %v", err)
				}
			}
		})
	}
	wg.Wait()
	got, _ := m.Get(ctx, s.ID)
	if len(got.Turns) != workers*perWorker {
		t.Errorf("session has %d turns, want %d", len(got.Turns), workers*perWorker)
	}
}

func TestStoreKeepsExpiredSessionsForGrace(t *testing.T) {
	ctx := context.Background()
	clock := newClock(t0)
	m := newStore(t, MemoryConfig{ExpiredGrace: time.Hour, MaxBytes: 4 << 20, Now: clock.Now})
	s, token := newSession(t, alice, Limits{})
	if err := m.Create(ctx, s); err != nil {
		t.Fatal(err)
	}

	clock.set(s.ExpiresAt.Add(59 * time.Minute))
	got, err := m.Get(ctx, s.ID)
	if err != nil {
		t.Fatalf("Get within grace: %v", err)
	}
	if err := got.Authorize(token, alice, clock.Now()); !errors.Is(err, ErrExpired) {
		t.Errorf("owner within grace: %v, want ErrExpired", err)
	}
	if err := got.Authorize(token, kgent, clock.Now()); !errors.Is(err, ErrForbidden) {
		t.Errorf("non-owner within grace: %v, want ErrForbidden", err)
	}

	clock.add(2 * time.Minute)
	if _, err := m.Get(ctx, s.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get past grace = %v, want ErrNotFound", err)
	}
	if err := m.Update(ctx, s.ID, func(*Session) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("Update past grace = %v, want ErrNotFound", err)
	}
}

// A session too large for the store is refused without evicting others
// (bigcache would empty the shard trying to fit it). Sessions are stored
// compressed, so the oversized turn is random text that does not compress.
func TestStoreRefusesOversizedSession(t *testing.T) {
	ctx := context.Background()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20, Now: newClock(t0).Now})
	small, _ := newSession(t, alice, Limits{})
	big, _ := newSession(t, alice, Limits{MaxContextTokens: 1 << 20})
	noise := make([]byte, 300<<10)
	_, _ = rand.Read(noise)
	big.AddTurn(turn(base64.StdEncoding.EncodeToString(noise), 1))
	if err := m.Create(ctx, small); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, big); err == nil {
		t.Errorf("Create of a 300 KiB session in a 1 MiB store succeeded")
	}
	if _, err := m.Get(ctx, small.ID); err != nil {
		t.Errorf("small session lost: %v", err)
	}
}

func TestStoreClose(t *testing.T) {
	ctx := context.Background()
	m, err := NewMemoryStore(MemoryConfig{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := New(alice, scope, Limits{}, time.Minute, time.Now())
	if err := m.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := m.Get(ctx, s.ID); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	if err := m.Update(ctx, s.ID, func(*Session) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Update after Close = %v, want ErrClosed", err)
	}
}

func TestStoreHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := newStore(t, MemoryConfig{MaxBytes: 1 << 20})
	if _, err := m.Get(ctx, strings.Repeat("0", 32)); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context = %v", err)
	}
}

func TestMemoryConfig(t *testing.T) {
	cfg, err := MemoryConfig{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TTL != 30*time.Minute || cfg.ExpiredGrace != time.Hour || cfg.MaxBytes != 256<<20 || cfg.Shards != 256 {
		t.Errorf("defaults = %+v", cfg)
	}
	if cfg, _ := (MemoryConfig{MaxBytes: 6 << 20}).withDefaults(); cfg.Shards != 4 {
		t.Errorf("6 MiB store has %d shards, want 4", cfg.Shards)
	}
	bad := map[string]MemoryConfig{
		"too small":         {MaxBytes: 1000},
		"negative ttl":      {TTL: -time.Second},
		"shards not 2^n":    {Shards: 3},
		"shards under 1MiB": {MaxBytes: 4 << 20, Shards: 8},
	}
	for name, c := range bad {
		if _, err := NewMemoryStore(c); err == nil {
			t.Errorf("%s: NewMemoryStore succeeded", name)
		}
	}
}
