package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/sessions"
)

// With Redis down every operation fails as ErrUnavailable (the gateway's
// 503), not as "not found" or "forbidden"; when it is back the same store
// works again without being rebuilt, and a persisted session is still there.
func TestOutageAndRecovery(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{Persist: true})
	s := gateStore(t, srv, Config{})
	sess, token := create(t, s, kgent, sessions.Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	srv.Stop()
	fresh, _, _ := sessions.New(kgent, testScope, sessions.Limits{}, s.TTL(), time.Now())
	checks := map[string]error{
		"admit":           s.Admit(ctx, kgent),
		"admit anonymous": s.Admit(ctx, visitor),
		"create":          s.Create(ctx, fresh),
		"update":          s.Update(ctx, sess.ID, func(*sessions.Session) error { return nil }),
		"get":             func() error { _, err := s.Get(ctx, sess.ID); return err }(),
	}
	if s.Health(ctx) == nil {
		t.Error("health with Redis down: reachable")
	}
	for name, err := range checks {
		if !errors.Is(err, sessions.ErrUnavailable) {
			t.Errorf("%s with Redis down: %v, want ErrUnavailable", name, err)
		}
	}

	srv.Start()
	waitHealthy(t, s)
	addTurn(t, s, sess.ID, "after the outage")
	got, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Authorize(token, kgent, time.Now()); err != nil || len(got.Turns) != 1 {
		t.Fatalf("after the outage: %v, %d turns", err, len(got.Turns))
	}
	create(t, s, kgent, sessions.Limits{})
}

// waitHealthy polls the store until Redis answers it again (go-redis
// probes a server that refused every dial once a second).
func waitHealthy(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.Health(context.Background()) == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the store did not reach Redis again within 10s")
}
