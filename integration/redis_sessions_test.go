package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wikigate/wikigate/internal/testservers"
	"github.com/wikigate/wikigate/redisconn"
)

// redisSessions is the wikigate configuration of a gate whose sessions
// live in srv.
func redisSessions(srv *testservers.Redis) string {
	return `sessions {
			store redis
			max_turns 50
		}
		redis {
			url ` + srv.URL() + `
			key_prefix itest:
			timeout 500ms
		}`
}

// startRedisGates starts gate A and, as a second site of the same Caddy,
// gate B: the same wikigate configuration on another port, with its own
// Redis connection pool (another pool_size makes it another store), so
// what B knows of A's sessions it can only have from Redis.
func startRedisGates(t *testing.T, srv *testservers.Redis) (a, b *gate, tap *ragflowTap) {
	t.Helper()
	tap, tapURL := newRAGFlowTap(t)
	a = startGate(t, gateOptions{ragflowURL: tapURL, extraOptions: redisSessions(srv)})
	u, _ := url.Parse(a.ragURL)
	tap.upstream.Store(u)

	aSite := siteBlock(t, a)
	port := freePort(t)
	bSite := strings.Replace(aSite, a.url[len("http://127.0.0.1"):], fmt.Sprintf(":%d", port), 1)
	bSite = strings.Replace(bSite, "key_prefix itest:", "key_prefix itest:\n\t\t\tpool_size 4", 1)
	a.config += "\n" + bSite
	a.reload()
	bCopy := *a
	bCopy.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	waitReady(t, bCopy.url+"/healthz")
	return a, &bCopy, tap
}

// siteBlock is the gate's site block in its Caddyfile (up to the next site).
func siteBlock(t *testing.T, g *gate) string {
	t.Helper()
	start := strings.Index(g.config, "http://"+g.url[len("http://127.0.0.1"):]+" {")
	if start < 0 {
		t.Fatal("gate site not found in its config")
	}
	end := strings.Index(g.config[start+1:], "\nhttp://")
	if end < 0 {
		t.Fatal("gate site has no end")
	}
	return g.config[start : start+1+end]
}

// turn asks q in session id through g and fails the test unless it is 200.
func askTurn(t *testing.T, g *gate, auth map[string]string, id, token, q string) {
	t.Helper()
	r := g.post("/answer/sessions/"+id+"/turns", withSession(auth, token), `{"question":"`+q+`"}`)
	if r.Status != 200 {
		t.Errorf("turn %q through %s: %d %s", q, g.url, r.Status, r.Body)
	}
}

// A session created through gate A continues through gate B with its
// history; its owner and token are checked there too; concurrent turns
// through both gates lose none; and it outlives a restart of the gates.
func TestRedisSessionsAcrossGates(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{})
	a, b, tap := startRedisGates(t, srv)
	coding := bearer(agentToken(t, "kunora-coding-agent"))

	r := a.post("/answer/sessions", coding, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 200 {
		t.Fatalf("create through A: %d %s", r.Status, r.Body)
	}
	id, token := r.json(t)["sessionId"].(string), r.json(t)["sessionToken"].(string)
	askTurn(t, b, coding, id, token, "And through the second gate?")
	if p := tap.lastPrompt(); !strings.Contains(p, "How do I configure agent memory?") {
		t.Fatalf("B's turn was answered without A's history: %s", p)
	}
	if n, err := rawRedis(t, srv).Exists(context.Background(), "itest:session:"+id).Result(); err != nil || n != 1 {
		t.Fatalf("the session is not in Redis under the key prefix: %d %v", n, err)
	}

	other := bearer(agentToken(t, "docs-maintainer-agent"))
	for name, try := range map[string]response{
		"another agent": b.post("/answer/sessions/"+id+"/turns", withSession(other, token), `{"question":"and then?"}`),
		"a wrong token": b.post("/answer/sessions/"+id+"/turns", withSession(coding, "forged"), `{"question":"and then?"}`),
	} {
		if try.Status != 403 || try.errorCode(t) != "session_forbidden" {
			t.Errorf("%s through B: %d %s", name, try.Status, try.Body)
		}
	}

	concurrent := []string{}
	var wg sync.WaitGroup
	for i := range 8 {
		q := fmt.Sprintf("Concurrent follow-up number %d about agent memory", i)
		concurrent = append(concurrent, q)
		g := []*gate{a, b}[i%2]
		wg.Go(func() { askTurn(t, g, coding, id, token, q) })
	}
	wg.Wait()

	// A restart of the gate process's config: Caddy stops (the stores are
	// closed) and starts again from the same Caddyfile.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	a.reload()
	waitReady(t, b.url+"/healthz")
	askTurn(t, b, coding, id, token, "One more after the restart")
	prompt := tap.lastPrompt()
	for _, q := range append(concurrent, "How do I configure agent memory?", "And through the second gate?") {
		if !strings.Contains(prompt, q) {
			t.Errorf("turn %q is missing from the history after the restart", q)
		}
	}
}

// Redis down: the session routes answer 503 session_store_unavailable
// (and reach no backend), the other routes keep serving, /healthz says
// degraded; Redis back: sessions work again without a restart.
func TestRedisSessionStoreOutage(t *testing.T) {
	srv := testservers.StartRedis(t, testservers.RedisOptions{Persist: true})
	tap, tapURL := newRAGFlowTap(t)
	g := startGate(t, gateOptions{ragflowURL: tapURL, extraOptions: redisSessions(srv)})
	u, _ := url.Parse(g.ragURL)
	tap.upstream.Store(u)
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	id, token := createSession(t, g, coding)

	srv.Stop()
	before := tap.completions()
	for name, r := range map[string]response{
		"create": g.post("/answer/sessions", coding, `{"question":"How do I configure agent memory?"}`),
		"turn":   g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"agent memory"}`),
	} {
		if r.Status != 503 || r.errorCode(t) != "session_store_unavailable" {
			t.Errorf("%s with Redis down: %d %s", name, r.Status, r.Body)
		}
	}
	if tap.completions() != before {
		t.Error("a session call reached RAGFlow while its store was down")
	}
	if r := g.post("/agent/tools/search", coding, `{"question":"agent memory","limit":3}`); r.Status != 200 {
		t.Errorf("search with Redis down: %d %s", r.Status, r.Body)
	}
	if r := g.post("/agent/tools/ask", coding, `{"question":"How do I configure agent memory?"}`); r.Status != 200 {
		t.Errorf("ask with Redis down: %d %s", r.Status, r.Body)
	}
	waitStoreHealth(t, g, false)

	srv.Start()
	waitStoreHealth(t, g, true)
	askTurn(t, g, coding, id, token, "Back after the outage?")
	createSession(t, g, coding)
}

// waitStoreHealth polls /healthz (its probes are cached for 2s) until the
// session store shows reachable, and the status matches.
func waitStoreHealth(t *testing.T, g *gate, reachable bool) {
	t.Helper()
	want := map[bool]string{true: "ok", false: "degraded"}[reachable]
	var last response
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		last = g.healthz()
		body := last.json(t)
		store, _ := body["stores"].(map[string]any)["sessions"].(map[string]any)
		if last.Status == 200 && store != nil && store["reachable"] == reachable && body["status"] == want {
			return
		}
	}
	t.Fatalf("/healthz never showed the session store reachable=%v: %d %s", reachable, last.Status, last.Body)
}

// rawRedis reads the server the way an operator's redis-cli would.
func rawRedis(t *testing.T, srv *testservers.Redis) *redis.Client {
	t.Helper()
	rdb, err := redisconn.New(redisconn.Config{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func (g *gate) healthz() response {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.url+"/healthz", nil)
	return g.do(req)
}
