package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/sessions"
)

// The anonymous budget is one count for all gates: with room for 3, the
// fourth anonymous session is refused whichever gate is asked, signed-in
// callers are never refused by it, and places come back as anonymous
// sessions pass their expiry.
func TestAnonymousBudgetSharedByGates(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	clk := newClock()
	cfg := Config{AnonymousMaxSessions: 3, TTL: time.Minute, Now: clk.now}
	a, b := gateStore(t, srv, cfg), gateStore(t, srv, cfg)
	ctx := context.Background()
	create(t, a, visitor, sessions.Limits{})
	create(t, b, visitor, sessions.Limits{})
	create(t, a, visitor, sessions.Limits{})
	for _, g := range []*Store{a, b} {
		if err := g.Admit(ctx, visitor); !errors.Is(err, sessions.ErrAnonymousBudget) {
			t.Fatalf("Admit past the budget: %v", err)
		}
		sess, _, _ := sessions.New(visitor, testScope, sessions.Limits{}, time.Minute, clk.now())
		if err := g.Create(ctx, sess); !errors.Is(err, sessions.ErrAnonymousBudget) {
			t.Fatalf("Create past the budget: %v", err)
		}
	}
	if err := b.Admit(ctx, kgent); err != nil {
		t.Fatalf("a signed-in caller refused by the anonymous budget: %v", err)
	}
	create(t, b, kgent, sessions.Limits{})

	clk.advance(time.Minute + time.Second) // the three anonymous sessions expire
	if err := b.Admit(ctx, visitor); err != nil {
		t.Fatalf("after the anonymous sessions expired: %v", err)
	}
	create(t, b, visitor, sessions.Limits{})
}

// Two gates racing for the last anonymous place: exactly one gets it.
func TestAnonymousLastPlaceTakenOnce(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	cfg := Config{AnonymousMaxSessions: 5}
	gates := []*Store{gateStore(t, srv, cfg), gateStore(t, srv, cfg)}
	results := make(chan error, 20)
	for i := range 20 {
		go func() {
			g := gates[i%2]
			sess, _, _ := sessions.New(visitor, testScope, sessions.Limits{}, g.TTL(), time.Now())
			results <- g.Create(context.Background(), sess)
		}()
	}
	created := 0
	for range 20 {
		err := <-results
		switch {
		case err == nil:
			created++
		case !errors.Is(err, sessions.ErrAnonymousBudget):
			t.Fatalf("unexpected: %v", err)
		}
	}
	if created != 5 {
		t.Fatalf("%d anonymous sessions created with room for 5", created)
	}
}
