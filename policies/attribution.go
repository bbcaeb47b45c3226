package policies

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"golang.org/x/time/rate"

	"github.com/wikigate/wikigate/protocol"
)

// Rule is a rule of the policy that decided a denial, as the audit record
// names it (docs/security.md, Explaining a denial): its file, the line of
// its head (or of the else branch that held) and its name.
type Rule struct {
	File string
	Line int
	Name string
}

func (r Rule) String() string { return fmt.Sprintf("%s:%d %s", r.File, r.Line, r.Name) }

// maxRules bounds the rules a denial names (a policy collecting every
// problem of a stage may hold many).
const maxRules = 8

// attribute names the rules that decided the denial d: it evaluates the
// same query on topdown again with a tracer that keeps only rule exits
// (the Wasm evaluator keeps no trace; no variable is plugged, which is
// what makes OPA's full trace slow) and keeps, in the order they held,
//
//   - each rule whose value is an object with d's deny code written as a
//     literal (the branch of the rule that chose the code), and
//   - each multi-value rule (`problems contains msg if ...`) that such a
//     branch reads and that held: the checks that failed.
//
// Only denials pay for it, and a cached denial keeps its rules. A trace
// that fails leaves the decision as it was, without rules.
func (p *prepared) attribute(ctx context.Context, q *rego.PreparedEvalQuery, in *Input, d *Decision) {
	if d.Allow || q == nil {
		return
	}
	key := string(d.Code) + "\x00" + d.Reason
	if q == p.tool {
		key = "tool\x00" + key // the tool gate's rules are its own
	}
	if rules, ok := p.attributed.get(key); ok {
		d.Rules = rules
		return
	}
	if !p.attributed.allow() {
		return // over the budget: this denial's record names no rules
	}
	p.trace(ctx, q, in, d)
	p.attributed.put(key, d.Rules)
}

// trace finds the rules of the denial d in a traced evaluation.
func (p *prepared) trace(ctx context.Context, q *rego.PreparedEvalQuery, in *Input, d *Decision) {
	var exits ruleExits
	if _, err := q.Eval(ctx, rego.EvalParsedInput(in.toAST()), rego.EvalQueryTracer(&exits)); err != nil {
		return
	}
	read := map[string]bool{} // what the deciding branches read
	for _, ev := range exits {
		if r := ev.Node.(*ast.Rule); choosesCode(r, d.Code) {
			ast.WalkRefs(r.Body, func(ref ast.Ref) bool {
				read[ref.String()] = true
				return false
			})
		}
	}
	seen := map[Rule]bool{}
	for _, ev := range exits {
		r := ev.Node.(*ast.Rule)
		multi := r.Head.Key != nil && r.Head.Value == nil
		if ev.Location == nil || !(choosesCode(r, d.Code) || multi && r.Module != nil && read[r.Ref().String()]) {
			continue
		}
		rule := Rule{File: strings.TrimPrefix(path.Clean(ev.Location.File), "./"), Line: ev.Location.Row, Name: r.Head.Ref().String()}
		if !seen[rule] && len(d.Rules) < maxRules {
			seen[rule] = true
			d.Rules = append(d.Rules, rule)
		}
	}
}

// ruleExits is a query tracer that keeps the exit of every rule whose
// body held, without the variable bindings.
type ruleExits []topdown.Event

func (*ruleExits) Enabled() bool               { return true }
func (*ruleExits) Config() topdown.TraceConfig { return topdown.TraceConfig{} }

func (t *ruleExits) TraceEvent(ev topdown.Event) {
	if _, ok := ev.Node.(*ast.Rule); ok && ev.Op == topdown.ExitOp {
		*t = append(*t, ev)
	}
}

// choosesCode: the rule's value is an object whose code is code, written
// as a literal.
func choosesCode(r *ast.Rule, code protocol.Code) bool {
	if r.Head.Value == nil {
		return false
	}
	obj, ok := r.Head.Value.Value.(ast.Object)
	if !ok {
		return false
	}
	t := obj.Get(ast.StringTerm("code"))
	if t == nil {
		return false
	}
	s, ok := t.Value.(ast.String)
	return ok && string(s) == string(code)
}

// A traced evaluation costs several times a plain one (hundreds of
// microseconds with 10,000 agents), so the rules of a denial are
// remembered per revision by code and reason (the reason names the checks
// that failed: the same reason, the same rules), and at most
// attributionsPerSecond new ones are traced (a burst of
// attributionBurst): beyond that a denial is served without its rules
// rather than letting a flood of distinct denials cost the gate a traced
// evaluation each.
const (
	attributionsPerSecond = 200
	attributionBurst      = 50
	attributionMemo       = 4096
)

// attributions is a revision's memo of denials' rules and its budget of
// traced evaluations.
type attributions struct {
	mu      sync.Mutex
	rules   map[string][]Rule
	limiter *rate.Limiter
}

func newAttributions() *attributions {
	return &attributions{rules: map[string][]Rule{}, limiter: rate.NewLimiter(attributionsPerSecond, attributionBurst)}
}

func (a *attributions) get(key string) ([]Rule, bool) {
	if a == nil {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.rules[key]
	return r, ok
}

func (a *attributions) allow() bool { return a == nil || a.limiter.Allow() }

func (a *attributions) put(key string, rules []Rule) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.rules) >= attributionMemo {
		clear(a.rules) // a new generation: the memo stays bounded
	}
	a.rules[key] = rules
}
