package redisstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/redisconn"
	"github.com/wikigate/wikigate/sessions"
)

var (
	kgent     = sessions.Owner{Type: sessions.OwnerAgent, ID: "kgent-bot"}
	other     = sessions.Owner{Type: sessions.OwnerAgent, ID: "docs-maintainer-agent"}
	visitor   = sessions.Owner{Type: sessions.OwnerHuman, Anonymous: true}
	testScope = protocol.Scope{Paths: []string{"publish/system/components/kunora-kgent"}, Version: "main"}
)

// clock is a settable clock shared by the "gates" of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// gateStore is one gate's store on srv: its own client and pool.
func gateStore(t *testing.T, srv *testservers.Redis, cfg Config) *Store {
	t.Helper()
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL(), Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(rdb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// rawClient reads the server the way an operator's redis-cli would.
func rawClient(t *testing.T, srv *testservers.Redis) *redis.Client {
	t.Helper()
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// create mints and stores a session of owner on s.
func create(t *testing.T, s *Store, owner sessions.Owner, limits sessions.Limits) (*sessions.Session, string) {
	t.Helper()
	sess, token, err := sessions.New(owner, testScope, limits, s.TTL(), s.cfg.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(context.Background(), sess); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sess, token
}

func citation(n int) protocol.Citation {
	page := fmt.Sprintf("publish/system/components/kunora-kgent/page-%d.md", n)
	return protocol.Citation{Path: page, Title: fmt.Sprintf("Kgent page %d", n), ChunkID: fmt.Sprintf("%032x", n), SourceProject: "kunora-kgent", Version: "main"}
}

func questions(s *sessions.Session) []string {
	out := []string{}
	for _, t := range s.Turns {
		out = append(out, t.Question)
	}
	return out
}
