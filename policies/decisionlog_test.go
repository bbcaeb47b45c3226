package policies_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
)

func decisionLogEngine(t *testing.T, o policies.DecisionLogOptions) (*policies.Engine, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	o.Logger = zap.New(core)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e, err := policies.New(ctx, policies.Options{Dir: defaultPolicyDir, Logger: zap.NewNop(), DecisionLog: &o})
	if err != nil {
		t.Fatal(err)
	}
	return e, logs
}

func waitEvents(t *testing.T, logs *observer.ObservedLogs, n int) []observer.LoggedEntry {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); logs.Len() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d decision events, want %d", logs.Len(), n)
		}
	}
	return logs.All()
}

// TestDecisionLogEvents: each decision is one OPA-shaped event named by the
// request id, with its input (masked paths erased and listed), its result
// and the policy revision.
func TestDecisionLogEvents(t *testing.T) {
	e, logs := decisionLogEngine(t, policies.DecisionLogOptions{Mask: []string{"/input/caller/roles"}})
	ctx := policies.WithDecisionID(context.Background(), "req-42")
	in := agentCall("kunora-coding-agent", "search", nil)
	in.Caller.Roles = []string{"secret-role"}
	if _, err := e.Decide(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DecideTool(ctx, agentCall("ops-readonly-agent", "ask", nil)); err != nil {
		t.Fatal(err)
	}
	evs := waitEvents(t, logs, 2)
	f := evs[0].ContextMap()
	if evs[0].Message != "Decision Log" || f["decision_id"] != "req-42" || f["path"] != policies.PathDecision ||
		f["type"] != "openpolicyagent.org/decision_logs" {
		t.Fatalf("event: %s %v", evs[0].Message, f)
	}
	input, _ := json.Marshal(f["input"])
	if strings.Contains(string(input), "secret-role") || !strings.Contains(string(input), `"tool":"search"`) {
		t.Errorf("input %s: want tool search and no roles", input)
	}
	if erased, _ := json.Marshal(f["erased"]); string(erased) != `["/input/caller/roles"]` {
		t.Errorf("erased %s", erased)
	}
	result, _ := json.Marshal(f["result"])
	bundles, _ := json.Marshal(f["bundles"])
	if !strings.Contains(string(result), `"allow":true`) || !strings.Contains(string(bundles), e.Revision()) {
		t.Errorf("result %s bundles %s", result, bundles)
	}
	t2 := evs[1].ContextMap()
	if r, _ := json.Marshal(t2["result"]); t2["path"] != policies.PathToolDecision || !strings.Contains(string(r), `"code":"forbidden_tool"`) {
		t.Errorf("tool gate event: %v", t2)
	}
	// The agent's roles are null: nothing to hide, so nothing is erased
	// and the event stays replayable.
	if input, _ := json.Marshal(t2["input"]); t2["erased"] != nil || !strings.Contains(string(input), `"roles":null`) {
		t.Errorf("an agent's event: erased %v, input %s", t2["erased"], input)
	}
}

// TestDecisionLogDropsWhenFull: a full buffer drops events and counts them
// instead of making the call wait; the next event written says how many.
func TestDecisionLogDropsWhenFull(t *testing.T) {
	e, logs := decisionLogEngine(t, policies.DecisionLogOptions{Buffer: 1})
	in := agentCall("kunora-coding-agent", "search", nil)
	start := time.Now()
	for range 2000 {
		_, _ = e.Decide(context.Background(), in)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("2000 decisions took %v with a full decision log", time.Since(start))
	}
	waitEvents(t, logs, 1)
	dropped := e.DecisionLogDropped()
	for _, ev := range logs.All() {
		if n, ok := ev.ContextMap()["dropped_before"].(uint64); ok {
			dropped += n
		}
	}
	if dropped == 0 || uint64(logs.Len())+dropped > 2000 {
		t.Errorf("written %d, dropped %d of 2000", logs.Len(), dropped)
	}
}
