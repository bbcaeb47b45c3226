package policies_test

import (
	"context"
	"reflect"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
)

// TestCachedDecisionsEqualEvaluatedOnes decides every case of the shipped
// policy three times with the cache on (the later rounds are cache hits)
// and once with it off: the answers must be the same.
func TestCachedDecisionsEqualEvaluatedOnes(t *testing.T) {
	t.Parallel()
	cached := newEngine(t, defaultPolicyDir)
	uncached, err := policies.New(t.Context(), policies.Options{Dir: defaultPolicyDir, CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for _, tc := range defaultPolicyCases() {
			want, err := uncached.Decide(t.Context(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cached.Decide(t.Context(), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, %s: cached %+v, evaluated %+v", round, tc.name, got, want)
			}
		}
	}
}

// TestNondeterministicPolicyIsNotCached: a policy that reads the clock may
// decide the same input differently, so its decisions must not be reused.
func TestNondeterministicPolicyIsNotCached(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "policy.rego", `package wikigate

decision := {"allow": false, "code": "forbidden_tool", "reason": sprintf("%d", [time.now_ns()])}
`)
	core, logs := observer.New(zap.InfoLevel)
	engine, err := policies.New(context.Background(), policies.Options{Dir: dir, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	in := agentCall("a", "search", nil)
	first, err := engine.Decide(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := engine.Decide(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Reason == second.Reason {
		t.Errorf("both decisions say %q: the second came from a cache", first.Reason)
	}
	if logs.FilterMessageSnippet("cache off").FilterField(zap.String("builtin", "time.now_ns")).Len() != 1 {
		t.Errorf("turning the cache off was not logged; logs: %v", logs.All())
	}
}
