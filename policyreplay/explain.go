package policyreplay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/wikigate/wikigate/policies"
)

// ExplainOptions say which decision to explain with which policy.
type ExplainOptions struct {
	Policy    string // policy folder (default rego)
	InputFile string // a policy input, or one decision event
	RequestID string // with Log: the events of this request
	Log       string
	Full      bool // print OPA's whole trace (wikigate rules only) too
	// Revisions is the folder where the gate keeps the sources of the
	// revisions it served (policy { keep_revisions }): an event is
	// explained with the revision that decided it when kept there.
	Revisions string
}

// Explain decides each selected input with the policy and prints the
// decision, its code and reason, and the wikigate rules that held while
// it was made (OPA's trace, shortened to rule exits).
func Explain(ctx context.Context, out io.Writer, o ExplainOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Policy == "" {
		o.Policy = "rego"
	}
	events, err := explainInputs(o)
	if err != nil {
		return err
	}
	engines := map[string]*policies.Engine{}
	for i := range events {
		dir := policyFor(out, o, &events[i])
		engine := engines[dir]
		if engine == nil {
			if engine, err = openPolicy(ctx, dir); err != nil {
				return err
			}
			engines[dir] = engine
		}
		one := o
		one.Policy = dir
		if err := explainOne(ctx, out, engine, one, &events[i]); err != nil {
			return err
		}
	}
	return nil
}

// explainInputs reads --input (a bare input, or an event with path and
// input) or the events of --request-id in --log.
func explainInputs(o ExplainOptions) ([]Recorded, error) {
	if o.InputFile != "" {
		raw, err := os.ReadFile(o.InputFile)
		if err != nil {
			return nil, err
		}
		var ev Recorded
		if json.Unmarshal(raw, &ev) == nil && len(ev.Input) > 0 && isGatePath(ev.Path) {
			return []Recorded{ev}, nil
		}
		return []Recorded{{Path: policies.PathDecision, Input: raw}}, nil
	}
	if o.RequestID == "" || o.Log == "" {
		return nil, fmt.Errorf("give --input, or --request-id with --log")
	}
	f, err := os.Open(o.Log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	all, _, err := ReadEvents(f)
	if err != nil {
		return nil, err
	}
	var found []Recorded
	for _, ev := range all {
		if ev.DecisionID == o.RequestID {
			found = append(found, ev)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no decision event for request %s in %s (audit records hold no policy input: use the decision log)", o.RequestID, o.Log)
	}
	return found, nil
}

func explainOne(ctx context.Context, out io.Writer, e *policies.Engine, o ExplainOptions, ev *Recorded) error {
	in, err := ev.input()
	if err != nil {
		return err
	}
	decide, query := e.Decide, policies.DefaultQuery
	if ev.Path == policies.PathToolDecision {
		decide, query = e.DecideTool, policies.ToolQuery
	}
	d, derr := decide(ctx, in)
	fmt.Fprintf(out, "%s (%s) for %s:%s %s, policy %s revision %s\n", ev.Path, query, in.Caller.Type, in.Caller.ID, in.Endpoint, o.Policy, d.Revision)
	if len(ev.Erased) > 0 {
		fmt.Fprintf(out, "  warning: the log erased %s from this input (decision_log mask): what follows is the decision on the masked input, not necessarily the one recorded\n",
			strings.Join(ev.Erased, ", "))
	}
	if ev.Path == policies.PathToolDecision && derr == nil && d.Allow {
		// The tool gate decides the tool only; printing its empty scope
		// would read as an empty grant.
		fmt.Fprintf(out, "  decision: allow (the tool only: the scope is the next decision's)\n")
	} else {
		printDecision(out, d, derr)
	}
	trace, err := traceOf(ctx, o.Policy, query, ev.Input)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "  rules that held:")
	for _, line := range heldRules(trace) {
		fmt.Fprintln(out, "    "+line)
	}
	if o.Full {
		fmt.Fprintln(out, "  trace:")
		topdown.PrettyTraceWithLocation(out, wikigateOnly(trace))
	}
	return nil
}

func printDecision(out io.Writer, d policies.Decision, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(out, "  decision: deny (the gate denies with policy_unavailable)\n  error: %v\n", err)
	case !d.Allow:
		fmt.Fprintf(out, "  decision: deny\n  code: %s\n  reason: %s\n", d.Code, d.Reason)
	default:
		s := d.Scope
		fmt.Fprintf(out, "  decision: allow\n  scope: projects=%v paths=%v version=%s working_docs=%v\n", s.Projects, s.Paths, s.Version, s.IncludeWorkingDocs)
		fmt.Fprintf(out, "  datasets: %v  write: %v\n", s.Datasets, d.Write)
	}
}

// traceOf evaluates query on input with OPA's tracer, over the policy
// folder as the gate loads it (tests excluded).
func traceOf(ctx context.Context, dir, query string, input json.RawMessage) ([]*topdown.Event, error) {
	var doc any
	if err := json.Unmarshal(input, &doc); err != nil {
		return nil, err
	}
	buf := topdown.NewBufferTracer()
	r := rego.New(rego.Query(query), rego.Load([]string{dir}, skipTests), rego.SetRegoVersion(ast.RegoV1),
		rego.Input(doc), rego.QueryTracer(buf))
	if _, err := r.Eval(ctx); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return *buf, nil
}

// skipTests leaves out the *_test.rego and hidden entries, as the gate
// does.
func skipTests(path string, info fs.FileInfo, depth int) bool {
	return (!info.IsDir() && strings.HasSuffix(info.Name(), "_test.rego")) || (depth >= 1 && strings.HasPrefix(info.Name(), "."))
}

// heldRules lists, in the order they held, each wikigate rule whose body
// succeeded: file:line, the rule's head.
func heldRules(trace []*topdown.Event) []string {
	seen := map[string]bool{}
	var out []string
	for _, ev := range wikigateOnly(trace) {
		rule, ok := ev.Node.(*ast.Rule)
		if ev.Op != topdown.ExitOp || !ok || ev.Location == nil {
			continue
		}
		line := fmt.Sprintf("%s:%d  %s", filepath.Base(ev.Location.File), ev.Location.Row, headOf(rule))
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

// headOf is the first line of the rule as written (an else branch or a
// default named by its rule), without the body's opening brace.
func headOf(r *ast.Rule) string {
	text, _, _ := strings.Cut(string(r.Location.Text), "\n")
	text = strings.TrimSpace(text)
	text = strings.TrimSpace(strings.TrimSuffix(text, "{"))
	text = strings.TrimSpace(strings.TrimSuffix(text, " if"))
	if name := r.Head.Ref().String(); !strings.Contains(text, name) {
		text = name + " " + text // an else branch, a default
	}
	if len(text) > 140 {
		text = text[:137] + "..."
	}
	return text
}

// wikigateOnly keeps the events of the policy's own modules (not the
// query's or built-ins').
func wikigateOnly(trace []*topdown.Event) []*topdown.Event {
	var out []*topdown.Event
	for _, ev := range trace {
		if ev.Location != nil && strings.HasSuffix(ev.Location.File, ".rego") {
			out = append(out, ev)
		}
	}
	return out
}
