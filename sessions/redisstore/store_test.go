package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/sessions"
)

// A session created through one gate is used through another: same scope,
// same token and owner checks, and a turn added on B is seen on A.
func TestSessionSharedAcrossGates(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	a, b := gateStore(t, srv, Config{}), gateStore(t, srv, Config{})
	ctx := context.Background()
	sess, token := create(t, a, kgent, sessions.Limits{})

	got, err := b.Get(ctx, sess.ID)
	if err != nil {
		t.Fatalf("gate B: %v", err)
	}
	if !slices.Equal(got.Scope.Paths, testScope.Paths) || got.Scope.Version != "main" || !got.ExpiresAt.Equal(sess.ExpiresAt) {
		t.Fatalf("gate B sees %+v", got)
	}
	if err := got.Authorize(token, kgent, time.Now()); err != nil {
		t.Fatalf("owner with token refused on gate B: %v", err)
	}
	if err := got.Authorize(token, other, time.Now()); !errors.Is(err, sessions.ErrForbidden) {
		t.Fatalf("another agent with the token: %v, want forbidden", err)
	}
	if err := got.Authorize("forged", kgent, time.Now()); !errors.Is(err, sessions.ErrForbidden) {
		t.Fatalf("owner with a wrong token: %v, want forbidden", err)
	}
	addTurn(t, b, sess.ID, "asked on gate B")
	back, err := a.Get(ctx, sess.ID)
	if err != nil || !slices.Equal(questions(back), []string{"asked on gate B"}) {
		t.Fatalf("gate A after B's turn: %v %v", questions(back), err)
	}
}

// A gate that stops (its store closed) and a new one started later find
// the session: Redis holds it, not the process.
func TestSessionOutlivesGateRestart(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	before := gateStore(t, srv, Config{})
	sess, token := create(t, before, kgent, sessions.Limits{})
	addTurn(t, before, sess.ID, "first")
	_ = before.Close()

	after := gateStore(t, srv, Config{})
	got, err := after.Get(context.Background(), sess.ID)
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if err := got.Authorize(token, kgent, time.Now()); err != nil || !slices.Equal(questions(got), []string{"first"}) {
		t.Fatalf("after restart: %v, turns %v", err, questions(got))
	}
}

// Two gates adding turns to one session at the same time lose none of
// them: every question is kept, in some order, and nothing twice.
func TestConcurrentTurnsLoseNothing(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	gates := []*Store{gateStore(t, srv, Config{}), gateStore(t, srv, Config{})}
	sess, _ := create(t, gates[0], kgent, sessions.Limits{MaxTurns: 100, MaxContextTokens: 200000})
	const perGate = 12
	var wg sync.WaitGroup
	want := []string{}
	for g, store := range gates {
		for i := range perGate {
			q := fmt.Sprintf("gate %d question %d", g, i)
			want = append(want, q)
			wg.Go(func() { addTurn(t, store, sess.ID, q) })
		}
	}
	wg.Wait()
	got, err := gates[1].Get(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	have := questions(got)
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Fatalf("kept %d turns %v, want the %d asked", len(have), have, len(want))
	}
}

// Trimming works as in the embedded store: over MaxTurns the oldest turns
// leave and their citations stay in the summary, across gates.
func TestTrimmingKeepsCitationSummary(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	a, b := gateStore(t, srv, Config{}), gateStore(t, srv, Config{})
	sess, _ := create(t, a, kgent, sessions.Limits{MaxTurns: 3})
	ctx := context.Background()
	for i := range 5 {
		store := []*Store{a, b}[i%2]
		err := store.Update(ctx, sess.ID, func(s *sessions.Session) error {
			s.AddTurn(sessions.Turn{Question: fmt.Sprintf("q%d", i), Answer: "a", Citations: []protocol.Citation{citation(i)}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(questions(got), []string{"q2", "q3", "q4"}) || got.TrimmedTurns != 2 {
		t.Fatalf("kept %v, trimmed %d", questions(got), got.TrimmedTurns)
	}
	if len(got.CitationSummary) != 2 || got.CitationSummary[0].ChunkID != citation(0).ChunkID || got.CitationSummary[1].ChunkID != citation(1).ChunkID {
		t.Fatalf("citation summary %+v, want the citations of q0 and q1", got.CitationSummary)
	}
}

// Redis holds the expiry: the key lives ExpiresAt+ExpiredGrace, is read as
// expired (not missing) in between, and is gone after.
func TestExpiryHeldByRedis(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	s := gateStore(t, srv, Config{TTL: 300 * time.Millisecond, ExpiredGrace: 400 * time.Millisecond})
	sess, token := create(t, s, kgent, sessions.Limits{})
	raw := rawClient(t, srv)
	pttl, err := raw.PTTL(context.Background(), s.sessionKey(sess.ID)).Result()
	if err != nil || pttl <= 300*time.Millisecond || pttl > 700*time.Millisecond {
		t.Fatalf("key expiry %v (%v), want about 700ms", pttl, err)
	}
	time.Sleep(400 * time.Millisecond)
	got, err := s.Get(context.Background(), sess.ID)
	if err != nil {
		t.Fatalf("inside the grace: %v", err)
	}
	if err := got.Authorize(token, kgent, time.Now()); !errors.Is(err, sessions.ErrExpired) {
		t.Fatalf("inside the grace: %v, want expired", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := raw.Exists(context.Background(), s.sessionKey(sess.ID)).Result(); n == 0 {
			if _, err := s.Get(context.Background(), sess.ID); !errors.Is(err, sessions.ErrNotFound) {
				t.Fatalf("after Redis dropped it: %v", err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("Redis kept the session past its expiry and grace")
}

// Sessions are stored compressed: a long, repetitive answer takes a
// fraction of its size in Redis.
func TestStoredCompressed(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	s := gateStore(t, srv, Config{})
	sess, _ := create(t, s, kgent, sessions.Limits{})
	answer := strings.Repeat("Configure the Redis memory store with the memory.backend key. ", 200)
	err := s.Update(context.Background(), sess.ID, func(s *sessions.Session) error {
		s.AddTurn(sessions.Turn{Question: "how?", Answer: answer})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	size, err := rawClient(t, srv).StrLen(context.Background(), s.sessionKey(sess.ID)).Result()
	if err != nil || size <= 0 || size > int64(len(answer)/4) {
		t.Fatalf("stored %d bytes (%v) for a %d byte answer", size, err, len(answer))
	}
}

// Two deployments on one Redis with different key prefixes do not see
// each other's sessions.
func TestKeyPrefixSeparates(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	blue, green := gateStore(t, srv, Config{KeyPrefix: "blue:"}), gateStore(t, srv, Config{KeyPrefix: "green:"})
	sess, _ := create(t, blue, kgent, sessions.Limits{})
	if _, err := green.Get(context.Background(), sess.ID); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("green sees blue's session: %v", err)
	}
	keys, err := rawClient(t, srv).Keys(context.Background(), "*").Result()
	if err != nil || !slices.Equal(keys, []string{"blue:session:" + sess.ID}) {
		t.Fatalf("keys %v (%v)", keys, err)
	}
}

func addTurn(t *testing.T, s *Store, id, q string) {
	t.Helper()
	err := s.Update(context.Background(), id, func(sess *sessions.Session) error {
		sess.AddTurn(sessions.Turn{Question: q, Answer: "answer to " + q, At: time.Now()})
		return nil
	})
	if err != nil {
		t.Errorf("turn %q: %v", q, err)
	}
}
