// Package filterexpr is Meilisearch's filter language, parsed once for the
// whole project: the gate's client filter (meili.ClientFilter) re-renders
// what a caller wrote from this parse, and the development Meilisearch
// (devbackends/devmeili) evaluates it. Both therefore agree on what a
// filter means, including that keywords are upper case only, as the
// engine reads them (docs/backends.md, Meilisearch wire details: Filter
// language).
package filterexpr

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Node is a parsed filter: Or, And, Not, Cond or Geo.
type Node interface {
	// Walk visits the node, then its children in order.
	Walk(visit func(Node))
}

// Or matches when any child does.
type Or struct{ Children []Node }

// And matches when every child does.
type And struct{ Children []Node }

// Not matches when its child does not ("NOT expr").
type Not struct{ Child Node }

// Cond is one condition on an attribute. Op is the positive operator ("=",
// ">", ">=", "<", "<=", "TO", "IN", "EXISTS", "IS NULL", "IS EMPTY",
// "STARTS WITH"); Negated marks the negated forms ("!=", "NOT IN",
// "NOT EXISTS", "IS NOT NULL", "IS NOT EMPTY", "NOT STARTS WITH"), which
// the engine evaluates as the complement of the positive one.
type Cond struct {
	Attr    Span
	Op      string
	Negated bool
	Values  []string // one value; two for TO (low, high); the list for IN
}

// Geo is a geo function call (_geoRadius, _geoBoundingBox, _geoPolygon),
// parsed only far enough to be named in an error: no index here has _geo.
type Geo struct{ Name Span }

// Walk implements Node.
func (n Or) Walk(visit func(Node)) { visit(n); walkAll(n.Children, visit) }

// Walk implements Node.
func (n And) Walk(visit func(Node)) { visit(n); walkAll(n.Children, visit) }

// Walk implements Node.
func (n Not) Walk(visit func(Node)) { visit(n); n.Child.Walk(visit) }

// Walk implements Node.
func (n Cond) Walk(visit func(Node)) { visit(n) }

// Walk implements Node.
func (n Geo) Walk(visit func(Node)) { visit(n) }

func walkAll(nodes []Node, visit func(Node)) {
	for _, c := range nodes {
		c.Walk(visit)
	}
}

// Operator is the operator as written: "!=" for a negated "=", "NOT IN",
// "IS NOT NULL" and so on.
func (n Cond) Operator() string {
	if !n.Negated {
		return n.Op
	}
	switch n.Op {
	case "=":
		return "!="
	case "IS NULL", "IS EMPTY":
		return "IS NOT " + n.Op[len("IS "):]
	}
	return "NOT " + n.Op
}

// Span is a piece of a filter with its rune offsets in Src, so errors can
// point at it the way the engine does ("\n<start>:<end> <filter>").
type Span struct {
	Text       string
	Start, End int
	Src        string
}

// Error is a filter problem, with the engine's message. Positioned errors
// end with the location suffix; type errors of the JSON filter value do
// not.
type Error struct {
	// FeatureGated marks CONTAINS: the engine answers feature_not_enabled.
	FeatureGated bool
	Msg          string
	Positioned   bool
	Start, End   int
	Src          string
}

// Error is the message as the engine writes it.
func (e *Error) Error() string {
	if !e.Positioned {
		return e.Msg
	}
	return fmt.Sprintf("%s\n%d:%d %s", e.Msg, e.Start+1, e.End+1, e.Src)
}

// At is an error about s, positioned on it.
func At(s Span, msg string) *Error {
	return &Error{Msg: msg, Positioned: true, Start: s.Start, End: s.End, Src: s.Src}
}

// typeError is the engine's message for a filter value of the wrong JSON
// type.
func typeError(expected string, found any) *Error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	text := fmt.Sprint(found)
	if enc.Encode(found) == nil {
		text = string(bytes.TrimRight(b.Bytes(), "\n"))
	}
	return &Error{Msg: "Invalid syntax for the filter parameter: `expected " + expected + ", found: " + text + "`."}
}
