package policyreplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/wikigate/wikigate/policies"
)

// ErrFlips is returned when a replay found an allow→deny, a deny→allow or
// a widening: the exit status that gates a policy change in CI.
var ErrFlips = errors.New("the candidate policy changes decisions it must not change silently")

// Options say what to replay against what.
type Options struct {
	Log       string // decision log (JSON lines)
	Candidate string // policy folder to judge
	Baseline  string // policy folder to compare with; "": the results recorded in the log
	// AllowWidening reports a widening of the grants (the data diff
	// against Baseline) without failing.
	AllowWidening bool
}

// Flip is one recorded decision that the candidate decides differently.
type Flip struct {
	Kind, Caller, Tool, Path, DecisionID string
	Line                                 int
	Added, Removed                       []string
}

// Report is what a replay found.
type Report struct {
	Events, Skipped int
	// Masked counts the decision events not replayed because the log
	// erased part of their input (decision_log mask); MaskedPaths are the
	// paths erased.
	Masked      int
	MaskedPaths []string
	Flips       []Flip
	// Grants is the grant diff of Baseline and Candidate (nil without a
	// baseline): what widens for callers the log never recorded.
	Grants *GrantDiff
	// allowWidening is Options.AllowWidening.
	allowWidening bool
}

// Failed says whether any flip, or a widening of the grants, fails the
// replay.
func (r *Report) Failed() bool {
	return r.flipsFail() || r.Grants != nil && len(r.Grants.Widened()) > 0 && !r.allowWidening
}

func (r *Report) flipsFail() bool {
	for _, f := range r.Flips {
		if Failing(f.Kind) {
			return true
		}
	}
	return false
}

// Run replays o.Log, prints the report to out and returns ErrFlips when
// the candidate must not pass.
func Run(ctx context.Context, out io.Writer, o Options) error {
	if ctx == nil {
		ctx = context.Background() // cobra leaves it nil outside ExecuteContext
	}
	rep, err := Replay(ctx, o)
	if err != nil {
		return err
	}
	rep.Print(out, o)
	switch {
	case rep.flipsFail():
		return ErrFlips
	case rep.Failed():
		return ErrWidens // only the grants widened: say so, not "changes decisions"
	}
	return nil
}

// Replay re-evaluates every recorded decision with the candidate (and the
// baseline, when given) and lists the flips.
func Replay(ctx context.Context, o Options) (*Report, error) {
	f, err := os.Open(o.Log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	events, skipped, err := ReadEvents(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Log, err)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("%s holds no decision events (turn on policy { decision_log } and route http.handlers.wikigate.decisions to a file)", o.Log)
	}
	cand, err := openPolicy(ctx, o.Candidate)
	if err != nil {
		return nil, err
	}
	var base *policies.Engine
	if o.Baseline != "" {
		if base, err = openPolicy(ctx, o.Baseline); err != nil {
			return nil, err
		}
	}
	rep := &Report{Skipped: skipped, allowWidening: o.AllowWidening}
	if o.Baseline != "" {
		if rep.Grants, err = Diff(o.Baseline, o.Candidate); err != nil {
			return nil, err
		}
	}
	for i := range events {
		if len(events[i].Erased) > 0 {
			rep.masked(&events[i])
			continue
		}
		rep.Events++
		if err := rep.replayOne(ctx, &events[i], cand, base); err != nil {
			return nil, err
		}
	}
	if rep.Events == 0 {
		return nil, fmt.Errorf("%s: every decision event had part of its input erased (%s): a masked input is not what the policy saw, so none can be replayed; replay a log written without that mask", o.Log, strings.Join(rep.MaskedPaths, ", "))
	}
	return rep, nil
}

// masked counts an event whose input the log masked: replayed, it would
// be judged on an input the policy never saw (a role erased reads as no
// role) and report flips that are not there.
func (r *Report) masked(ev *Recorded) {
	r.Masked++
	for _, p := range ev.Erased {
		if !slices.Contains(r.MaskedPaths, p) {
			r.MaskedPaths = append(r.MaskedPaths, p)
		}
	}
}

// openPolicy loads a policy folder as the gate does, without running its
// tests (a candidate whose tests fail is still worth judging), on topdown:
// the Rego's own meaning, which Wasm serves only where it agrees.
func openPolicy(ctx context.Context, dir string) (*policies.Engine, error) {
	e, err := policies.New(ctx, policies.Options{Dir: dir, CacheSize: -1, SkipTests: true, Evaluator: policies.EvaluatorTopdown})
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", dir, err)
	}
	return e, nil
}

func (r *Report) replayOne(ctx context.Context, ev *Recorded, cand, base *policies.Engine) error {
	in, err := ev.input()
	if err != nil {
		return err
	}
	before := outcomeOf(ev.Result, ev.Error)
	if base != nil {
		before = evaluate(ctx, base, ev.Path, in)
	}
	after := evaluate(ctx, cand, ev.Path, in)
	if ev.Path == policies.PathToolDecision {
		// The tool gate decides the tool alone; its allow carries no
		// scope (the decision log writes {"allow": true}), so only the
		// outcome can flip. Older logs recorded a scope there too.
		before.grants, after.grants = nil, nil
	}
	kind, added, removed := flipKind(before, after)
	if kind != "" {
		r.Flips = append(r.Flips, Flip{Kind: kind, Caller: in.Caller.Type + ":" + in.Caller.ID, Tool: in.Tool,
			Path: ev.Path, DecisionID: ev.DecisionID, Line: ev.Line, Added: added, Removed: removed})
	}
	return nil
}

func evaluate(ctx context.Context, e *policies.Engine, path string, in policies.Input) outcome {
	decide := e.Decide
	if path == policies.PathToolDecision {
		decide = e.DecideTool
	}
	d, err := decide(ctx, in)
	if err != nil {
		return outcomeOf(nil, err.Error())
	}
	w := policies.WireOf(d)
	return outcomeOf(&w, "")
}

type groupKey struct{ kind, caller, tool string }

// Print writes the flips grouped by kind, caller and tool, with counts.
func (r *Report) Print(out io.Writer, o Options) {
	against := "the results recorded in the log"
	if o.Baseline != "" {
		against = o.Baseline
	}
	fmt.Fprintf(out, "replayed %d decisions from %s against %s (baseline: %s)\n", r.Events, o.Log, o.Candidate, against)
	if r.Masked > 0 {
		fmt.Fprintf(out, "not replayed: %d decisions whose input the log masked (erased %s); the policy saw what the log does not hold\n",
			r.Masked, strings.Join(r.MaskedPaths, ", "))
	}
	groups := map[groupKey][]Flip{}
	for _, f := range r.Flips {
		k := groupKey{f.Kind, f.Caller, f.Tool}
		groups[k] = append(groups[k], f)
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.kind+"\x00"+a.caller+"\x00"+a.tool < b.kind+"\x00"+b.caller+"\x00"+b.tool
	})
	for _, k := range keys {
		printGroup(out, k, groups[k])
	}
	if len(r.Flips) == 0 {
		fmt.Fprintln(out, "no decision changes")
	}
	if r.Grants == nil {
		fmt.Fprintln(out, "grants not compared: give --baseline (or run wikigate policy diff) to catch a widening no recorded call shows")
		return
	}
	r.Grants.Print(out, o.Baseline, o.Candidate)
}

func printGroup(out io.Writer, k groupKey, flips []Flip) {
	calls := map[string]bool{}
	for _, f := range flips {
		calls[f.DecisionID] = true
	}
	fmt.Fprintf(out, "%-12s %-40s %-24s %d call(s), %d decision(s)\n", k.kind, "caller="+k.caller, "tool="+k.tool, len(calls), len(flips))
	for _, f := range flips {
		detail := ""
		if len(f.Added) > 0 {
			detail += " added " + strings.Join(f.Added, ",")
		}
		if len(f.Removed) > 0 {
			detail += " removed " + strings.Join(f.Removed, ",")
		}
		fmt.Fprintf(out, "    request %s (%s, line %d)%s\n", f.DecisionID, f.Path, f.Line, detail)
	}
}
