package policies_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// cacheRecorder is an Observer that remembers, per query, whether the
// decision cache answered each decision.
type cacheRecorder struct {
	mu     sync.Mutex
	hits   map[string]int
	misses map[string]int
}

func newCacheRecorder() *cacheRecorder {
	return &cacheRecorder{hits: map[string]int{}, misses: map[string]int{}}
}

func (r *cacheRecorder) PolicyReload(string)           {}
func (r *cacheRecorder) PolicyRevision(string, string) {}
func (r *cacheRecorder) DecisionLogDropped(int)        {}

func (r *cacheRecorder) PolicyDecision(path string, cached bool, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cached {
		r.hits[path]++
	} else {
		r.misses[path]++
	}
}

func (r *cacheRecorder) take() (hits, misses map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hits, misses = r.hits, r.misses
	r.hits, r.misses = map[string]int{}, map[string]int{}
	return hits, misses
}

// recentCalls are distinct calls of several callers, the traffic of the
// moment before a reload.
func recentCalls() []policies.Input {
	var calls []policies.Input
	for _, id := range []string{"kunora-coding-agent", "docs-maintainer-agent", "ops-readonly-agent"} {
		for _, tool := range []string{"search", "ask", "get_page"} {
			calls = append(calls,
				agentCall(id, tool, nil),
				agentCall(id, tool, scope(nil, []string{kgent + "/guides"}, "")),
				agentCall(id, tool, scope([]string{"kunora-kgent"}, nil, "v1.0")))
		}
	}
	return append(calls, humanAsk("public-read", anonymousHuman, nil))
}

// TestReloadWarmsTheRecentCalls: after a reload the calls answered just
// before it are decision-cache hits from the first request on, and each
// hit is the new revision's decision (here the edit switches an agent off,
// so its warmed decisions are denials), never the previous revision's.
func TestReloadWarmsTheRecentCalls(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	recorder := newCacheRecorder()
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), Observer: recorder})
	if err != nil {
		t.Fatal(err)
	}
	calls := recentCalls()
	decideAll(t, engine, calls)
	if _, misses := recorder.take(); misses[policies.PathDecision] != len(calls) || misses[policies.PathToolDecision] == 0 {
		t.Fatalf("first calls: misses %v, want every call evaluated", misses)
	}

	editData(t, dir, disableAgent("docs-maintainer-agent"))
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	got := decideAll(t, engine, calls)
	hits, misses := recorder.take()
	if len(misses) != 0 || hits[policies.PathDecision] != len(calls) || hits[policies.PathToolDecision] != len(calls) {
		t.Errorf("after the reload: hits %v, misses %v; want all %d calls of each query answered by the cache", hits, misses, len(calls))
	}

	fresh, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), CacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := decideAll(t, fresh, calls)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warmed decisions differ from the new revision's own:\n got  %+v\n want %+v", got, want)
	}
	if d := got[len(calls)-1]; d.Revision != engine.Revision() {
		t.Errorf("warmed decision names revision %q, want %q", d.Revision, engine.Revision())
	}
}

// TestReloadWarmsOnlyWhatWasAsked: a call nobody made before the reload is
// still evaluated by the new revision (warming invents no decisions).
func TestReloadWarmsOnlyWhatWasAsked(t *testing.T) {
	t.Parallel()
	dir := copyPolicyDir(t)
	recorder := newCacheRecorder()
	engine, err := policies.New(t.Context(), policies.Options{Dir: dir, Logger: zap.NewNop(), Observer: recorder})
	if err != nil {
		t.Fatal(err)
	}
	decideAll(t, engine, recentCalls()[:1])
	editData(t, dir, disableAgent("ops-readonly-agent"))
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	recorder.take()
	decideAll(t, engine, []policies.Input{agentCall("docs-maintainer-agent", "search", nil)})
	if hits, _ := recorder.take(); hits[policies.PathDecision] != 0 {
		t.Errorf("a call not made before the reload was a cache hit: %v", hits)
	}
}

// decideAll asks the tool gate and then the decision for each call, as
// the gateway does, and returns the decisions.
func decideAll(t *testing.T, engine *policies.Engine, calls []policies.Input) []policies.Decision {
	t.Helper()
	ctx := context.Background()
	out := make([]policies.Decision, len(calls))
	for i, in := range calls {
		if _, err := engine.DecideTool(ctx, in); err != nil {
			t.Fatalf("DecideTool(%+v): %v", in, err)
		}
		d, err := engine.Decide(ctx, in)
		if err != nil {
			t.Fatalf("Decide(%+v): %v", in, err)
		}
		out[i] = d
	}
	return out
}
