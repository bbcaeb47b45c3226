package policies

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
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
// same query on topdown again with OPA's tracer (the Wasm evaluator keeps
// no trace) and keeps, in the order they held,
//
//   - each rule whose value is an object with d's deny code (the branch of
//     the rule that chose the code, and the decision rule itself), and
//   - each multi-value rule (`problems contains msg if ...`) whose element
//     is a string the reason quotes: the checks that failed.
//
// Only denials pay for it, and a cached denial keeps its rules. A trace
// that fails leaves the decision as it was, without rules.
func (p *prepared) attribute(ctx context.Context, q *rego.PreparedEvalQuery, in *Input, d *Decision) {
	if d.Allow || q == nil {
		return
	}
	buf := topdown.NewBufferTracer()
	if _, err := q.Eval(ctx, rego.EvalParsedInput(in.toAST()), rego.EvalQueryTracer(buf)); err != nil {
		return
	}
	seen := map[Rule]bool{}
	for _, ev := range *buf {
		rule, ok := ev.Node.(*ast.Rule)
		if ev.Op != topdown.ExitOp || !ok || ev.Location == nil || !decides(rule, ev, d) {
			continue
		}
		r := Rule{File: strings.TrimPrefix(path.Clean(ev.Location.File), "./"), Line: ev.Location.Row, Name: rule.Head.Ref().String()}
		if !seen[r] && len(d.Rules) < maxRules {
			seen[r] = true
			d.Rules = append(d.Rules, r)
		}
	}
}

// decides reports whether the rule's exit in ev produced d's code or a
// failed check its reason names.
func decides(rule *ast.Rule, ev *topdown.Event, d *Decision) bool {
	head := rule.Head
	if head.Key != nil && head.Value == nil { // a multi-value (set) rule
		s, ok := plug(head.Key, ev).Value.(ast.String)
		return ok && s != "" && strings.Contains(d.Reason, string(s))
	}
	if head.Value == nil {
		return false
	}
	obj, ok := plug(head.Value, ev).Value.(ast.Object)
	if !ok {
		return false
	}
	t := obj.Get(ast.StringTerm("code"))
	if t == nil {
		return false
	}
	code, ok := t.Value.(ast.String)
	return ok && string(code) == string(d.Code)
}

// plug substitutes the variables bound when the rule exited, in a
// variable or an object's values (what a compiled rule head holds: the
// compiler moves every call of a head into the body).
func plug(t *ast.Term, ev *topdown.Event) *ast.Term {
	if ev.Locals == nil {
		return t
	}
	switch v := t.Value.(type) {
	case ast.Var:
		if x := ev.Locals.Get(v); x != nil {
			return ast.NewTerm(x)
		}
	case ast.Object:
		out := ast.NewObject()
		v.Foreach(func(k, val *ast.Term) { out.Insert(k, plug(val, ev)) })
		return ast.NewTerm(out)
	}
	return t
}
