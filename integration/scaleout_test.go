package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wikigate/wikigate/internal/testservers"
)

// Issue 9's acceptance: three gate processes on one Redis and one
// PostgreSQL behind one Caddy load balancer behave as one gate, and lose
// nothing they acknowledged when one of them is killed.
func TestScaleOutThreeGatesBehindOneBalancer(t *testing.T) {
	rds := testservers.StartRedis(t, testservers.RedisOptions{})
	pg := testservers.StartPostgres(t)
	c := startCluster(t, rds, pg)

	c.sessionAcrossGates(t)
	c.feedbackMergesAcrossGates(t)
	c.oneKeyTwoGatesAtOnce(t)
	c.perCallerLimitAcrossGates(t)
	c.tokenBudgetAcrossGates(t)
	c.killOneGateUnderLoad(t)
}

// A session created through one gate is continued through the other two
// (round robin sends the three calls to the three gates), with its history.
func (c *cluster) sessionAcrossGates(t *testing.T) {
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	first := "How do I configure agent memory?"
	r := c.lb.post("/answer/sessions", coding, `{"question":"`+first+`"}`)
	if r.Status != 200 {
		t.Fatalf("create a session through the balancer: %d %s", r.Status, r.Body)
	}
	served := []string{r.Header.Get(servedBy)}
	id, token := r.json(t)["sessionId"].(string), r.json(t)["sessionToken"].(string)
	followUps := []string{"And where is that setting stored?", "Does it survive a restart?"}
	for _, q := range followUps {
		r := c.lb.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"`+q+`"}`)
		if r.Status != 200 {
			t.Fatalf("turn %q through %s: %d %s", q, r.Header.Get(servedBy), r.Status, r.Body)
		}
		served = append(served, r.Header.Get(servedBy))
	}
	if slices.Sort(served); !slices.Equal(served, []string{"gate-1", "gate-2", "gate-3"}) {
		t.Fatalf("create and two turns were served by %v, want each gate once", served)
	}
	prompt := c.tap.lastPrompt()
	for _, q := range append([]string{first}, followUps[0]) {
		if !strings.Contains(prompt, q) {
			t.Errorf("the third gate answered without the turn %q from the other gates: %s", q, prompt)
		}
	}
}

// 60 concurrent reports of one gap with distinct idempotency keys, spread
// over the three gates, make one record counted 60: every answer names the
// same record and the counts they saw are exactly 1..60.
func (c *cluster) feedbackMergesAcrossGates(t *testing.T) {
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	const n = 60
	ids, counts, by := make([]string, n), make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"merge-%d"}`, i)
			r := c.lb.post("/agent/tools/create_feedback", coding, body)
			if r.Status != 200 {
				t.Errorf("report %d through %s: %d %s", i, r.Header.Get(servedBy), r.Status, r.Body)
				return
			}
			rec := r.json(t)["record"].(map[string]any)
			ids[i], counts[i], by[i] = rec["id"].(string), int(rec["count"].(float64)), r.Header.Get(servedBy)
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if slices.Sort(counts); counts[0] != 1 || counts[n-1] != n || len(slices.Compact(counts)) != n {
		t.Errorf("the counts the %d reports saw are not 1..%d: %v", n, n, counts)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 1 {
		t.Errorf("the reports made more than one record: %v", ids)
	}
	if gates := slices.Compact(slices.Sorted(slices.Values(by))); len(gates) != 3 {
		t.Errorf("the balancer spread the reports over %v, want three gates", gates)
	}
	var rows, count int
	c.query(t, `SELECT count(*), max((doc->>'count')::int) FROM wikigate_feedback_records
		WHERE dedupe_key = (SELECT dedupe_key FROM wikigate_feedback_records WHERE id = $1)`, []any{ids[0]}, &rows, &count)
	if rows != 1 || count != n {
		t.Errorf("PostgreSQL holds %d records for the gap, count %d; want 1 record, count %d", rows, count, n)
	}
}

// One idempotency key sent to two gates at once: one occurrence, and both
// callers get the same bytes; the third gate replays them too.
func (c *cluster) oneKeyTwoGatesAtOnce(t *testing.T) {
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	body := `{"eventType":"qa_no_answer","question":"Is there a style guide for runbooks?","idempotencyKey":"retry-1"}`
	var r1, r2 response
	var wg sync.WaitGroup
	wg.Go(func() { r1 = c.gates[0].post("/agent/tools/create_feedback", coding, body) })
	wg.Go(func() { r2 = c.gates[1].post("/agent/tools/create_feedback", coding, body) })
	wg.Wait()
	if r1.Status != 200 || r2.Status != 200 || string(r1.Body) != string(r2.Body) {
		t.Fatalf("one key through two gates at once must answer the same bytes:\n%d %s\n%d %s", r1.Status, r1.Body, r2.Status, r2.Body)
	}
	if r3 := c.gates[2].post("/agent/tools/create_feedback", coding, body); string(r3.Body) != string(r1.Body) {
		t.Errorf("the third gate's replay differs: %d %s", r3.Status, r3.Body)
	}
	rec := r1.json(t)["record"].(map[string]any)
	var rows, count int
	c.query(t, `SELECT count(*), max((doc->>'count')::int) FROM wikigate_feedback_records
		WHERE dedupe_key = (SELECT dedupe_key FROM wikigate_feedback_records WHERE id = $1)`, []any{rec["id"]}, &rows, &count)
	if rows != 1 || count != 1 {
		t.Errorf("one key through two gates: %d records, count %d; want 1 record, count 1", rows, count)
	}
}

// An agent limited to 10 searches a minute gets 10 through the three
// gates; the 11th, 12th and 13th are refused, one by each gate.
func (c *cluster) perCallerLimitAcrossGates(t *testing.T) {
	auth := bearer(agentToken(t, "docs-maintainer-agent"))
	body := `{"question":"agent memory","limit":3}`
	allowedBy := map[string]int{}
	for i := range 10 {
		r := c.lb.post("/agent/tools/search", auth, body)
		if r.Status != 200 {
			t.Fatalf("search %d through %s: %d %s", i+1, r.Header.Get(servedBy), r.Status, r.Body)
		}
		allowedBy[r.Header.Get(servedBy)]++
	}
	var refusedBy []string
	for i := 11; i <= 13; i++ {
		r := c.lb.post("/agent/tools/search", auth, body)
		if r.Status != 429 || r.errorCode(t) != "rate_limited" {
			t.Fatalf("search %d through %s: %d %s, want 429 rate_limited (allowed so far: %v)", i, r.Header.Get(servedBy), r.Status, r.Body, allowedBy)
		}
		if r.Header.Get("Retry-After") == "" || !strings.Contains(r.Header.Get("RateLimit-Policy"), `"search-minute";q=10;w=60`) ||
			!strings.Contains(r.Header.Get("RateLimit"), `"search-minute";r=0;t=`) {
			t.Errorf("429 through %s lacks Retry-After or the RateLimit fields: %v", r.Header.Get(servedBy), r.Header)
		}
		refusedBy = append(refusedBy, r.Header.Get(servedBy))
	}
	slices.Sort(refusedBy)
	if len(allowedBy) != 3 || !slices.Equal(refusedBy, []string{"gate-1", "gate-2", "gate-3"}) {
		t.Errorf("allowed by %v, refused by %v: want each gate to allow some and refuse one", allowedBy, refusedBy)
	}
}

// query runs one row query against the cluster's PostgreSQL.
func (c *cluster) query(t *testing.T, sql string, args []any, dest ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pg.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
