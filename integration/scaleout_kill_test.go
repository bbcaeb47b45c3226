package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// acked is one report a gate acknowledged (200) during the kill test.
type acked struct {
	body      string
	resp      []byte
	id, by    string
	afterKill bool
}

// loadRun is the outcome of the reports sent while a gate was killed.
type loadRun struct {
	mu       sync.Mutex
	acks     []acked
	statuses map[string]int
}

func (l *loadRun) record(a *acked, status string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statuses[status]++
	if a != nil {
		l.acks = append(l.acks, *a)
	}
}

func (l *loadRun) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks)
}

// Reports of distinct gaps flow through the balancer for a few seconds
// (12 callers, at most 600 reports) and the third gate is killed with
// SIGKILL in the middle. Afterwards every acknowledged report is in
// PostgreSQL, and its idempotency key replays the same bytes on a
// surviving gate: a 200 was only sent after the commit.
func (c *cluster) killOneGateUnderLoad(t *testing.T) {
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	run := &loadRun{statuses: map[string]int{}}
	var seq atomic.Int64
	var killed atomic.Bool
	stop := time.Now().Add(5 * time.Second)
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				i := seq.Add(1)
				if i > 600 {
					return
				}
				after := killed.Load()
				body := fmt.Sprintf(`{"eventType":"qa_no_answer","question":"Where is the runbook for incident %d?","idempotencyKey":"load-%d"}`, i, i)
				status, header, resp := tryPost(c.lb.client, c.lb.url+"/agent/tools/create_feedback", coding, body)
				if status != "200" {
					run.record(nil, status)
					continue
				}
				var ok struct {
					Record struct{ ID string } `json:"record"`
				}
				if json.Unmarshal(resp, &ok) != nil || ok.Record.ID == "" {
					t.Errorf("a 200 without a record: %s", resp)
					return
				}
				run.record(&acked{body: body, resp: resp, id: ok.Record.ID, by: header.Get(servedBy), afterKill: after}, status)
			}
		})
	}
	for deadline := time.Now().Add(3 * time.Second); run.count() < 40 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	c.procs[2].kill()
	killed.Store(true)
	wg.Wait()
	c.checkAcknowledged(t, run)
}

// checkAcknowledged replays every acknowledged report on the two gates
// left and counts its record in PostgreSQL.
func (c *cluster) checkAcknowledged(t *testing.T, run *loadRun) {
	by, after, ids := map[string]int{}, 0, make([]string, 0, len(run.acks))
	for _, a := range run.acks {
		by[a.by]++
		if a.afterKill {
			after++
		}
		ids = append(ids, a.id)
	}
	t.Logf("kill -9 of gate-3 under load: %d acknowledged (by gate %v, %d after the kill), replies %v", len(run.acks), by, after, run.statuses)
	if by["gate-3"] == 0 || after == 0 {
		t.Fatalf("the load must be acknowledged by gate-3 before the kill and by the others after it: by %v, %d after", by, after)
	}
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	var wg sync.WaitGroup
	jobs := make(chan acked)
	for w := range 6 {
		g := c.gates[w%2]
		wg.Go(func() {
			for a := range jobs {
				status, _, resp := tryPost(g.client, g.url+"/agent/tools/create_feedback", coding, a.body)
				if string(resp) != string(a.resp) {
					t.Errorf("acknowledged report %s (by %s) replays differently on %s: %s %s", a.id, a.by, g.url, status, resp)
				}
			}
		})
	}
	for _, a := range run.acks {
		jobs <- a
	}
	close(jobs)
	wg.Wait()
	var present int
	c.query(t, `SELECT count(DISTINCT id) FROM wikigate_feedback_records WHERE id = ANY($1)`, []any{ids}, &present)
	if present != len(ids) {
		t.Errorf("PostgreSQL holds %d of the %d acknowledged records", present, len(ids))
	}
}

// tryPost is a POST from a load goroutine: a transport error is a status
// like any other, never a test failure on its own.
func tryPost(client *http.Client, url string, headers map[string]string, body string) (string, http.Header, []byte) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "request: " + err.Error(), nil, nil
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "transport error", nil, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "body cut", resp.Header, nil
	}
	return fmt.Sprint(resp.StatusCode), resp.Header, b
}
