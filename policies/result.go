package policies

import (
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/wikigate/wikigate/protocol"
)

// The prepared query hands results back as OPA terms (keepTerm), and
// parseResult reads the decision straight from them: converting to Go
// values and through JSON into wireDecision costs as much as a simple
// policy's evaluation. The reading is as strict as the JSON decoding it
// replaces: a field of the wrong type is a malformed decision, a missing or
// null field is its zero value, unknown fields are ignored, and sets are
// read as lists (the JSON encoding of a set is a list).

// keepTerm is the rego.GenerateJSON hook that skips the conversion to Go.
func keepTerm(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }

// parseResult reads exactly one decision object out of rs. Undefined, several
// results or a malformed object are errors (fail closed), as in
// opa-envoy-plugin envoyauth/evaluation.go Eval.
func parseResult(rs rego.ResultSet) (Decision, error) {
	object, err := decisionObject(rs)
	if err != nil {
		return Decision{}, err
	}
	return decisionOf(readWireDecision(object))
}

// decisionOf is a decision as read by either evaluator's reader.
func decisionOf(wire wireDecision, err error) (Decision, error) {
	if err != nil {
		return Decision{}, fmt.Errorf("malformed policy decision: %w", err)
	}
	return wire.toDecision()
}

// decisionObject is the one object a decision query returned.
func decisionObject(rs rego.ResultSet) (ast.Object, error) {
	switch {
	case len(rs) == 0:
		return nil, ErrUndefinedDecision
	case len(rs) > 1:
		return nil, fmt.Errorf("policy returned %d results, want 1", len(rs))
	case len(rs[0].Expressions) != 1:
		return nil, fmt.Errorf("policy returned %d expressions, want 1", len(rs[0].Expressions))
	}
	term, ok := rs[0].Expressions[0].Value.(*ast.Term)
	if !ok {
		return nil, fmt.Errorf("policy decision is %T, want an object", rs[0].Expressions[0].Value)
	}
	object, ok := term.Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("policy decision is %s, want an object", ast.ValueName(term.Value))
	}
	return object, nil
}

func readWireDecision(o ast.Object) (wireDecision, error) {
	var w wireDecision
	var err error
	if v := field(o, "allow"); v != nil {
		allow, ok := v.(ast.Boolean)
		if !ok {
			return w, errors.New("allow is not a boolean")
		}
		w.Allow = (*bool)(&allow)
	}
	var code string
	if code, err = readString(o, "code"); err != nil {
		return w, err
	}
	w.Code = protocol.Code(code)
	if w.Reason, err = readString(o, "reason"); err != nil {
		return w, err
	}
	if w.Scope, err = readScope(o); err != nil {
		return w, err
	}
	if w.ProjectPaths, err = readProjectPaths(o); err != nil {
		return w, err
	}
	if w.Datasets, err = readDatasets(o); err != nil {
		return w, err
	}
	if w.Index, err = readString(o, "index"); err != nil {
		return w, err
	}
	if w.Write, err = readBool(o, "write"); err != nil {
		return w, err
	}
	if w.WriteTools, err = readStrings(o, "write_tools"); err != nil {
		return w, err
	}
	if w.Pages, err = readStrings(o, "pages"); err != nil {
		return w, err
	}
	w.Limits, err = readLimits(o)
	return w, err
}

// fieldKeys are the decision's keys as terms, made once: looking a field up
// with a fresh term allocates it on every read of every decision.
var fieldKeys = func() map[string]*ast.Term {
	keys := map[string]*ast.Term{}
	for _, k := range []string{
		"allow", "code", "reason", "scope", "project_paths", "datasets", "index", "write",
		"write_tools", "pages", "limits", "projects", "paths", "version", "includeWorkingDocs",
		"id", "project", "status", "name", "per", "requests", "window",
	} {
		keys[k] = ast.StringTerm(k)
	}
	return keys
}()

// keyTerm is key as a term, shared when it is one of fieldKeys.
func keyTerm(key string) *ast.Term {
	if t, ok := fieldKeys[key]; ok {
		return t
	}
	return ast.StringTerm(key)
}

// field is o[key], or nil when it is missing or null.
func field(o ast.Object, key string) ast.Value {
	t := o.Get(keyTerm(key))
	if t == nil {
		return nil
	}
	return nonNull(t.Value)
}

// nonNull is v, or nil when v is null.
func nonNull(v ast.Value) ast.Value {
	if _, null := v.(ast.Null); null {
		return nil
	}
	return v
}

func readString(o ast.Object, key string) (string, error) {
	v := field(o, key)
	if v == nil {
		return "", nil
	}
	s, ok := v.(ast.String)
	if !ok {
		return "", fmt.Errorf("%s is %s, want a string", key, ast.ValueName(v))
	}
	return string(s), nil
}

func readBool(o ast.Object, key string) (bool, error) {
	v := field(o, key)
	if v == nil {
		return false, nil
	}
	b, ok := v.(ast.Boolean)
	if !ok {
		return false, fmt.Errorf("%s is %s, want a boolean", key, ast.ValueName(v))
	}
	return bool(b), nil
}

// readStrings reads a list (or set) of strings; nil when missing or null.
func readStrings(o ast.Object, key string) ([]string, error) {
	return stringsOf(key, field(o, key))
}

// stringsOf reads v, the value of key, as a list (or set) of strings; nil
// when v is nil.
func stringsOf(key string, v ast.Value) ([]string, error) {
	elems, err := listOf(key, v)
	if err != nil || elems == nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		s, ok := e.Value.(ast.String)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is %s, want a string", key, i, ast.ValueName(e.Value))
		}
		out[i] = string(s)
	}
	return out, nil
}

// readList returns the elements of o[key] when it is a list or a set.
func readList(o ast.Object, key string) ([]*ast.Term, error) {
	return listOf(key, field(o, key))
}

// listOf returns the elements of v, the value of key, when it is a list or
// a set; nil when v is nil.
func listOf(key string, v ast.Value) ([]*ast.Term, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *ast.Array:
		elems := make([]*ast.Term, 0, v.Len())
		v.Foreach(func(t *ast.Term) { elems = append(elems, t) })
		return elems, nil
	case ast.Set:
		return v.Slice(), nil
	default:
		return nil, fmt.Errorf("%s is %s, want a list", key, ast.ValueName(v))
	}
}

func readScope(o ast.Object) (*protocol.Scope, error) {
	v := field(o, "scope")
	if v == nil {
		return nil, nil
	}
	so, ok := v.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("scope is %s, want an object", ast.ValueName(v))
	}
	var s protocol.Scope
	var err error
	if s.Projects, err = readStrings(so, "projects"); err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	if s.Paths, err = readStrings(so, "paths"); err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	if s.Version, err = readString(so, "version"); err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	if s.IncludeWorkingDocs, err = readBool(so, "includeWorkingDocs"); err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	return &s, nil
}

// readProjectPaths reads project_paths, an object of project → list of
// paths; nil when missing or null.
func readProjectPaths(o ast.Object) (map[string][]string, error) {
	v := field(o, "project_paths")
	if v == nil {
		return nil, nil
	}
	po, ok := v.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("project_paths is %s, want an object", ast.ValueName(v))
	}
	out := make(map[string][]string, po.Len())
	err := po.Iter(func(k, v *ast.Term) error {
		project, ok := k.Value.(ast.String)
		if !ok {
			return fmt.Errorf("project_paths has a %s key, want a string", ast.ValueName(k.Value))
		}
		paths, err := stringsOf(string(project), nonNull(v.Value))
		if err != nil {
			return fmt.Errorf("project_paths: %w", err)
		}
		out[string(project)] = paths
		return nil
	})
	return out, err
}

func readDatasets(o ast.Object) ([]Dataset, error) {
	elems, err := readList(o, "datasets")
	if err != nil || elems == nil {
		return nil, err
	}
	out := make([]Dataset, len(elems))
	for i, e := range elems {
		do, ok := e.Value.(ast.Object)
		if !ok {
			return nil, fmt.Errorf("datasets[%d] is %s, want an object", i, ast.ValueName(e.Value))
		}
		if out[i], err = readDataset(do); err != nil {
			return nil, fmt.Errorf("datasets[%d]: %w", i, err)
		}
	}
	return out, nil
}

func readDataset(o ast.Object) (Dataset, error) {
	var d Dataset
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"id", &d.ID}, {"project", &d.Project}, {"version", &d.Version}, {"status", &d.Status}} {
		if *f.dst, err = readString(o, f.key); err != nil {
			return d, err
		}
	}
	return d, nil
}
