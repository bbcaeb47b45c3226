package integration

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wikigate/wikigate/internal/testservers"
)

// startPGGates starts gate A and, as a second site of the same Caddy, gate
// B, both with `feedback { store postgres }` on pg. B's max_conns differs,
// so it gets its own store and connection pool: what B knows of A's
// records it can only have from PostgreSQL.
func startPGGates(t *testing.T, pg *testservers.Postgres) (a, b *gate) {
	t.Helper()
	a = startGate(t, gateOptions{})
	pgBlock := func(conns int) string {
		return fmt.Sprintf("feedback {\n\t\t\tstore postgres\n\t\t}\n\t\tpostgres {\n\t\t\tdsn %s\n\t\t\tmax_conns %d\n\t\t}", pg.DSN(), conns)
	}
	bolt := "feedback {\n\t\t\tpath " + a.feedbackPath + "\n\t\t}"
	if !strings.Contains(a.config, bolt) {
		t.Fatal("the gate's feedback block is not where the test expects it")
	}
	aSite := strings.Replace(siteBlock(t, a), bolt, pgBlock(8), 1)
	port := freePort(t)
	bSite := strings.Replace(aSite, a.url[len("http://127.0.0.1"):], fmt.Sprintf(":%d", port), 1)
	bSite = strings.Replace(bSite, "max_conns 8", "max_conns 6", 1)
	a.config = strings.Replace(a.config, siteBlock(t, a), aSite+"\n"+bSite, 1)
	a.reload()
	bCopy := *a
	bCopy.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	waitReady(t, bCopy.url+"/healthz")
	return a, &bCopy
}

// 60 concurrent create_feedback calls over two gates on one PostgreSQL
// become one record with count 60; the same idempotency key sent to both
// gates at once gets one record and the same bytes from each.
func TestPostgresFeedbackAcrossGates(t *testing.T) {
	pg := testservers.StartPostgres(t)
	a, b := startPGGates(t, pg)
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	ids := make([]string, 60)
	var wg sync.WaitGroup
	for i := range 60 {
		g := []*gate{a, b}[i%2]
		wg.Go(func() {
			body := fmt.Sprintf(`{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"k-%d"}`, i)
			if r := g.post("/agent/tools/create_feedback", coding, body); r.Status == 200 {
				ids[i] = r.json(t)["record"].(map[string]any)["id"].(string)
			} else {
				t.Errorf("submission %d through %s: %d %s", i, g.url, r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	probe := a.post("/agent/tools/create_feedback", coding, `{"eventType":"qa_no_answer","question":"What is the payroll schedule?","idempotencyKey":"probe"}`)
	rec := probe.json(t)["record"].(map[string]any)
	if rec["id"] != ids[0] || rec["count"].(float64) != 61 {
		t.Fatalf("60 submissions over two gates + 1 probe: want one record with count 61, got %v (ids %v)", rec, ids)
	}

	same := `{"eventType":"qa_no_answer","question":"Is there a style guide?","idempotencyKey":"retry-1"}`
	var ra, rb response
	wg.Go(func() { ra = a.post("/agent/tools/create_feedback", coding, same) })
	wg.Go(func() { rb = b.post("/agent/tools/create_feedback", coding, same) })
	wg.Wait()
	if ra.Status != 200 || string(ra.Body) != string(rb.Body) {
		t.Fatalf("one key through both gates at once must answer the same bytes:\n%d %s\n%d %s", ra.Status, ra.Body, rb.Status, rb.Body)
	}
	if c := ra.json(t)["record"].(map[string]any)["count"].(float64); c != 1 {
		t.Fatalf("one key through both gates counted %v", c)
	}
	conflict := b.post("/agent/tools/create_feedback", coding, `{"eventType":"qa_no_answer","question":"Something else","idempotencyKey":"retry-1"}`)
	if conflict.Status != 409 || conflict.errorCode(t) != "idempotency_conflict" {
		t.Fatalf("same key, other body, other gate: %d %s", conflict.Status, conflict.Body)
	}
}

// PostgreSQL down: create_feedback answers 503 feedback_store_unavailable,
// search still answers, /healthz says degraded; PostgreSQL back: the same
// gate records again without a restart, and the key refused during the
// outage was not used up.
func TestPostgresFeedbackOutage(t *testing.T) {
	pg := testservers.StartPostgres(t)
	a, _ := startPGGates(t, pg)
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	body := `{"eventType":"qa_no_answer","question":"Where is the vacation policy?","idempotencyKey":"during-outage"}`

	pg.Stop()
	r := a.post("/agent/tools/create_feedback", coding, body)
	if r.Status != 503 || r.errorCode(t) != "feedback_store_unavailable" {
		t.Fatalf("create_feedback with PostgreSQL down: %d %s", r.Status, r.Body)
	}
	if s := a.post("/agent/tools/search", coding, `{"question":"vacation policy","limit":3}`); s.Status != 200 {
		t.Errorf("search with PostgreSQL down: %d %s", s.Status, s.Body)
	}
	waitFeedbackHealth(t, a, false)

	pg.Start()
	waitFeedbackHealth(t, a, true)
	r = a.post("/agent/tools/create_feedback", coding, body)
	if r.Status != 200 || r.json(t)["created"] != true {
		t.Fatalf("create_feedback after PostgreSQL came back: %d %s", r.Status, r.Body)
	}
}

// waitFeedbackHealth polls /healthz (probes are cached for 2s) until the
// feedback store shows the wanted reachability and the status matches.
func waitFeedbackHealth(t *testing.T, g *gate, reachable bool) {
	t.Helper()
	want := map[bool]string{true: "ok", false: "degraded"}[reachable]
	var last response
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		last = g.healthz()
		body := last.json(t)
		stores, _ := body["stores"].(map[string]any)
		store, _ := stores["feedback"].(map[string]any)
		if last.Status == 200 && store != nil && store["reachable"] == reachable && body["status"] == want {
			return
		}
	}
	t.Fatalf("/healthz never showed the feedback store reachable=%v: %d %s", reachable, last.Status, last.Body)
}
