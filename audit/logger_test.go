package audit

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/protocol"
)

func record() *Record {
	r := New("req-1", "/agent/tools/search", time.Now())
	r.CallerType, r.CallerID, r.Tool = "agent", "kunora-coding-agent", "search"
	r.SetQuestion("how do I configure agent memory?")
	r.EffectiveScope = &protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/x"}, Version: "main"}
	r.Decision = &Decision{Allow: true, Revision: "abc"}
	r.AddBackend("meilisearch", 200, 3*time.Millisecond, nil)
	r.AddBackend("ragflow", 0, time.Second, errors.New("connection refused"))
	r.Fail(protocol.NewError(protocol.CodeRAGFlowUnavailable, "x"))
	return r
}

func TestQuestionIsHashedUnlessOptedIn(t *testing.T) {
	for _, optIn := range []bool{false, true} {
		core, logs := observer.New(zap.InfoLevel)
		NewLogger(zap.New(core), optIn).Write(record())
		entries := logs.All()
		if len(entries) != 1 {
			t.Fatalf("want one record, got %d", len(entries))
		}
		fields := entries[0].ContextMap()
		_, clear := fields["question"]
		_, hashed := fields["question_sha256"]
		if clear != optIn || hashed == optIn {
			t.Fatalf("optIn=%v: clear=%v hashed=%v", optIn, clear, hashed)
		}
		if !optIn && fields["question_sha256"] != HashQuestion("how do I configure agent memory?") {
			t.Fatal("hash mismatch")
		}
	}
}

func TestRecordCarriesDecisionBackendsAndResult(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	NewLogger(zap.New(core), false).Write(record())
	f := logs.All()[0].ContextMap()
	if f["result"] != "ragflow_unavailable" || f["status"] != int64(503) || f["request_id"] != "req-1" {
		t.Fatalf("unexpected fields: %v", f)
	}
	backends := f["backends"].([]any)
	if len(backends) != 2 || !strings.Contains(backends[1].(map[string]any)["error"].(string), "refused") {
		t.Fatalf("backends not recorded: %v", backends)
	}
	if f["decision"].(map[string]any)["policy_revision"] != "abc" {
		t.Fatalf("decision not recorded: %v", f["decision"])
	}
}

// A denial's record names the rules that decided it and the revision's
// digest (docs/security.md, Explaining a denial).
func TestRecordNamesTheRulesOfADenial(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	r := record()
	r.Decision = &Decision{Code: "unauthorized", Reason: "unknown agent", Revision: "abc", Digest: "abc123",
		Rules: []string{"identity.rego:45 identity_problems", "decision.rego:10 denial"}}
	NewLogger(zap.New(core), false).Write(r)
	d := logs.All()[0].ContextMap()["decision"].(map[string]any)
	rules, _ := d["rules"].([]any)
	if d["policy_digest"] != "abc123" || len(rules) != 2 || rules[0] != "identity.rego:45 identity_problems" {
		t.Fatalf("decision recorded as %v", d)
	}
}
