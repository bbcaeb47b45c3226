package policies_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// logService is a decision-log service as OPA's API has it: it accepts
// POSTs of gzipped JSON arrays of events and keeps the batches it decoded.
// fail makes it answer 503 to that many POSTs first.
type logService struct {
	mu      sync.Mutex
	batches [][]map[string]any
	auth    []string
	fail    atomic.Int32
}

func (s *logService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Encoding") != "gzip" ||
		r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want a gzipped JSON POST", http.StatusBadRequest)
		return
	}
	if s.fail.Add(-1) >= 0 {
		http.Error(w, "not now", http.StatusServiceUnavailable)
		return
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var batch []map[string]any
	if err := json.NewDecoder(zr).Decode(&batch); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.batches = append(s.batches, batch)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
}

func (s *logService) events() (evs []map[string]any, batches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		evs = append(evs, b...)
	}
	return evs, len(s.batches)
}

type dropCounter struct{ n atomic.Int64 }

func (*dropCounter) PolicyReload(string)                        {}
func (*dropCounter) PolicyRevision(string, string)              {}
func (*dropCounter) PolicyDecision(string, bool, time.Duration) {}
func (d *dropCounter) DecisionLogDropped(n int)                 { d.n.Add(int64(n)) }

func uploadEngine(t *testing.T, up policies.UploadOptions, mask []string, obs policies.ReloadObserver) (*policies.Engine, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e, err := policies.New(ctx, policies.Options{Dir: defaultPolicyDir, Logger: zap.NewNop(), Observer: obs,
		DecisionLog: &policies.DecisionLogOptions{Upload: &up, Mask: mask}})
	if err != nil {
		t.Fatal(err)
	}
	return e, cancel
}

// TestDecisionLogUpload: decisions reach the service in gzipped batches of
// at most the batch size, with the bearer token, masked input, OPA's
// evaluation metrics and the policy revision; what is queued when the
// configuration unloads is flushed, not lost; a refused POST is retried.
func TestDecisionLogUpload(t *testing.T) {
	svc := &logService{}
	svc.fail.Store(1)
	srv := httptest.NewServer(svc)
	defer srv.Close()
	e, stop := uploadEngine(t, policies.UploadOptions{URL: srv.URL + "/logs", Batch: 3, Interval: time.Hour,
		RetryMin: 10 * time.Millisecond, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		[]string{"/input/caller/roles"}, nil)
	in := agentCall("kunora-coding-agent", "search", nil)
	in.Caller.Roles = []string{"secret-role"}
	for i := range 7 {
		ctx := policies.WithDecisionID(context.Background(), "req-"+string(rune('a'+i)))
		if _, err := e.Decide(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "two full batches", func() bool { evs, _ := svc.events(); return len(evs) >= 6 }) // two full batches, one after a 503
	stop()
	e.WaitDecisionLog() // the seventh waits for its batch to fill: flushed on unload
	evs, batches := svc.events()
	if len(evs) != 7 || batches != 3 {
		t.Fatalf("%d events in %d batches, want 7 in 3", len(evs), batches)
	}
	for i, ev := range evs {
		checkUploadedEvent(t, ev, e.Revision())
		if want := "req-" + string(rune('a'+i)); ev["decision_id"] != want {
			t.Errorf("event %d is %v, want %s (order kept)", i, ev["decision_id"], want)
		}
	}
	if svc.auth[0] != "Bearer s3cret" {
		t.Errorf("Authorization %q", svc.auth[0])
	}
	// A cached decision has no evaluation: it says the cache answered.
	if m := evs[1]["metrics"].(map[string]any); m["counter_wikigate_decision_cache_hit"] != float64(1) {
		t.Errorf("second decision's metrics %v: want a cache hit", m)
	}
}

func checkUploadedEvent(t *testing.T, ev map[string]any, revision string) {
	t.Helper()
	raw, _ := json.Marshal(ev)
	s := string(raw)
	if strings.Contains(s, "secret-role") || !strings.Contains(s, `"erased":["/input/caller/roles"]`) {
		t.Errorf("event not masked: %s", s)
	}
	if ev["path"] != policies.PathDecision || !strings.Contains(s, `"bundles":{"wikigate":{"revision":"`+revision+`"}}`) ||
		!strings.Contains(s, `"allow":true`) || ev["timestamp"] == nil {
		t.Errorf("event: %s", s)
	}
	m, _ := ev["metrics"].(map[string]any)
	if _, ok := m["timer_wikigate_decide_ns"]; !ok {
		t.Errorf("metrics %v: want timer_wikigate_decide_ns", m)
	}
	if _, hit := m["counter_wikigate_decision_cache_hit"]; !hit {
		if _, ok := m["timer_rego_query_eval_ns"]; !ok {
			t.Errorf("metrics %v: want OPA's timer_rego_query_eval_ns", m)
		}
	}
}

// TestDecisionLogUploadRetriesWithoutNewEvents: one batch refused once is
// sent again after the backoff although nothing else is queued (no wake, no
// tick for an hour). It was left waiting for the next batch or interval
// before, which made TestDecisionLogUpload flaky.
func TestDecisionLogUploadRetriesWithoutNewEvents(t *testing.T) {
	svc := &logService{}
	svc.fail.Store(1)
	srv := httptest.NewServer(svc)
	defer srv.Close()
	e, _ := uploadEngine(t, policies.UploadOptions{URL: srv.URL, Batch: 3, Interval: time.Hour,
		RetryMin: 10 * time.Millisecond}, nil, nil)
	in := agentCall("kunora-coding-agent", "search", nil)
	for range 3 {
		if _, err := e.Decide(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the refused batch sent again", func() bool { evs, _ := svc.events(); return len(evs) == 3 })
}

// TestDecisionLogUploadDropsWhenDown: a service that refuses every POST
// fills the bounded buffer; further events are dropped and counted, and
// decisions do not wait for the service.
func TestDecisionLogUploadDropsWhenDown(t *testing.T) {
	svc := &logService{}
	svc.fail.Store(1 << 30)
	srv := httptest.NewServer(svc)
	defer srv.Close()
	drops := &dropCounter{}
	e, _ := uploadEngine(t, policies.UploadOptions{URL: srv.URL, Batch: 2, Interval: 10 * time.Millisecond, Buffer: 5,
		RetryMin: time.Hour}, nil, drops)
	in := agentCall("kunora-coding-agent", "search", nil)
	for range 200 {
		if _, err := e.Decide(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "195 events dropped", func() bool { return drops.n.Load() >= 195 })
	if evs, _ := svc.events(); len(evs) != 0 {
		t.Errorf("%d events accepted by a service that refuses all", len(evs))
	}
}
