package gateway

import (
	"slices"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// guardAllow re-checks, in Go, the parts of an allow the gateway relies on,
// so that a policy edit that forgets one cannot open the gate: a write
// needs the decision's write permission, a session turn's scope must lie
// within the session's, and the decision's index must be the one this gate
// searches.
func (g *Gateway) guardAllow(rt route, c *call, d policies.Decision) error {
	if rt.action == "write" && !d.Write {
		return protocol.NewError(protocol.CodeForbiddenTool, "writing with "+rt.tool+" is not allowed")
	}
	if c.session != nil && !within(d.Scope, c.session.Scope) {
		return protocol.NewError(protocol.CodeForbiddenScope, "the requested scope is outside the session's scope")
	}
	if d.Index != "" && g.cfg.SearchIndex != "" && d.Index != g.cfg.SearchIndex {
		g.deps.Logger.Error("policy decided an index this gate does not search; denying",
			zapRequestID(c.reqID))
		return protocol.NewError(protocol.CodePolicyUnavailable, "the policy could not decide this call; it is denied")
	}
	return nil
}

// within reports whether inner asks for no more than outer: its projects,
// its paths (on segment boundaries), its version and working docs.
func within(inner, outer protocol.Scope) bool {
	if inner.Version != outer.Version || (inner.IncludeWorkingDocs && !outer.IncludeWorkingDocs) {
		return false
	}
	for _, p := range inner.Projects {
		if !slices.Contains(outer.Projects, p) {
			return false
		}
	}
	for _, p := range inner.Paths {
		if !slices.ContainsFunc(outer.Paths, func(o string) bool { return scope.Covers(o, p) }) {
			return false
		}
	}
	return true
}
