package policies

import (
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Limit is one rate limit the policy sets on an allowed call (the
// decision's limits[]): at most Requests calls per Window seconds, counted
// per caller ("caller": an identity, or an anonymous reader's address) or
// once for all anonymous readers ("anonymous"). Calls share a budget when
// their limits share Name and Per. The gateway enforces it.
//
// A limit with Tokens instead of Requests is a token budget: at most
// Tokens generation tokens (input plus output) per Window, checked before
// the call and charged with what it used (docs/operators.md, Token accounting and
// budgets). A limit counts one or the other, never both.
type Limit struct {
	Name     string `json:"name"`
	Per      string `json:"per"`
	Requests int    `json:"requests,omitempty"`
	Tokens   int    `json:"tokens,omitempty"`
	Window   int    `json:"window"` // seconds
}

// The values of Limit.Per.
const (
	PerCaller    = "caller"
	PerAnonymous = "anonymous"
)

// readLimits reads limits[]; a malformed limit is a malformed decision, so
// the call is denied rather than run without its limit.
func readLimits(o ast.Object) ([]Limit, error) {
	elems, err := readList(o, "limits")
	if err != nil || elems == nil {
		return nil, err
	}
	out := make([]Limit, len(elems))
	for i, e := range elems {
		lo, ok := e.Value.(ast.Object)
		if !ok {
			return nil, fmt.Errorf("limits[%d] is %s, want an object", i, ast.ValueName(e.Value))
		}
		if out[i], err = readLimit(lo); err != nil {
			return nil, fmt.Errorf("limits[%d]: %w", i, err)
		}
	}
	return out, nil
}

func readLimit(o ast.Object) (Limit, error) {
	var l Limit
	var err error
	if l.Name, err = readString(o, "name"); err != nil {
		return l, err
	}
	if l.Per, err = readString(o, "per"); err != nil {
		return l, err
	}
	if l.Requests, l.Tokens, err = readBudget(o); err != nil {
		return l, err
	}
	if l.Window, err = readPositive(o, "window"); err != nil {
		return l, err
	}
	if l.Name == "" || (l.Per != PerCaller && l.Per != PerAnonymous) {
		return l, errors.New(`a limit needs a name and per "caller" or "anonymous"`)
	}
	return l, nil
}

// readBudget reads what a limit counts: requests, or tokens (present,
// even as null, means the limit is a token budget).
func readBudget(o ast.Object) (requests, tokens int, err error) {
	hasTokens := o.Get(keyTerm("tokens")) != nil
	switch {
	case hasTokens && o.Get(keyTerm("requests")) != nil:
		return 0, 0, errBothBudgets
	case hasTokens:
		tokens, err = readPositive(o, "tokens")
	default:
		requests, err = readPositive(o, "requests")
	}
	return requests, tokens, err
}

var errBothBudgets = errors.New("a limit counts requests or tokens, not both")

// readPositive reads a whole number above zero: a zero or negative budget
// is a policy bug, not "unlimited" and not "refuse everything".
func readPositive(o ast.Object, key string) (int, error) {
	n, ok := field(o, key).(ast.Number)
	if !ok {
		return 0, fmt.Errorf("%s is missing or not a number", key)
	}
	i, ok := n.Int()
	if !ok || i <= 0 {
		return 0, fmt.Errorf("%s is %s, want a whole number above 0", key, n)
	}
	return i, nil
}
