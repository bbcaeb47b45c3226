package policyreplay

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrWidens is returned when the candidate's data grants anything the
// baseline's did not: the exit status that stops a widening policy change in
// CI even when no recorded call would show it (a new agent has no recorded
// calls; the decision log holds only the calls the gate saw).
var ErrWidens = errors.New("the candidate policy widens access")

// Change kinds of a grant diff.
const (
	Widens  = "widens"
	Narrows = "narrows"
	Changes = "changes" // neither wider nor narrower: a renamed index, a moved default
)

// Change is one difference between two policies' grants, in plain words.
type Change struct {
	Kind    string `json:"kind"`
	Subject string `json:"subject"` // "agent x", "humans", "anonymous readers", "maintainers", "catalog", "limits"
	What    string `json:"what"`
}

// GrantDiff is what changed between the baseline's and the candidate's
// grants.
type GrantDiff struct {
	Changes []Change `json:"changes"`
}

// Widened lists the changes that widen access.
func (g *GrantDiff) Widened() []Change {
	return slices.DeleteFunc(slices.Clone(g.Changes), func(c Change) bool { return c.Kind != Widens })
}

func (g *GrantDiff) add(kind, subject, format string, args ...any) {
	g.Changes = append(g.Changes, Change{Kind: kind, Subject: subject, What: fmt.Sprintf(format, args...)})
}

// DiffData compares two policies' data documents (data.json as the gate
// loads it): the effective grant of every agent, the people's grant by
// role, the limits and the catalog.
func DiffData(old, cand map[string]any) *GrantDiff {
	g := &GrantDiff{}
	diffAgents(g, obj(old, "agents"), obj(cand, "agents"))
	diffHumans(g, obj(old, "humans"), obj(cand, "humans"))
	diffLimits(g, obj(old, "limits"), obj(cand, "limits"), agentIDs(old, cand))
	diffCatalog(g, obj(old, "catalog"), obj(cand, "catalog"))
	return g
}

// agentIDs are the agents switched on in both documents.
func agentIDs(old, cand map[string]any) []string {
	var ids []string
	for id, a := range obj(cand, "agents") {
		o, ok := obj(old, "agents")[id].(map[string]any)
		n, _ := a.(map[string]any)
		if ok && !truth(o, "disabled") && !truth(n, "disabled") {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func diffAgents(g *GrantDiff, old, cand map[string]any) {
	for _, id := range slices.Sorted(maps.Keys(union(old, cand))) {
		subject := "agent " + id
		o, wasThere := old[id].(map[string]any)
		n, isThere := cand[id].(map[string]any)
		oOn, nOn := wasThere && !truth(o, "disabled"), isThere && !truth(n, "disabled")
		switch {
		case !oOn && nOn:
			how := "new agent"
			if wasThere {
				how = "switched on (was disabled)"
			}
			g.add(Widens, subject, "%s: %s", how, describeAgent(n))
		case oOn && !nOn:
			how := "removed"
			if isThere {
				how = "switched off (disabled)"
			}
			g.add(Narrows, subject, "%s", how)
		case oOn && nOn:
			diffAgent(g, subject, o, n)
		}
	}
}

// describeAgent says everything an agent is granted, for a new one.
func describeAgent(a map[string]any) string {
	parts := []string{"tools " + listOrNone(strs(a, "tools")), "write tools " + listOrNone(strs(a, "write_tools"))}
	grants := obj(a, "grants")
	for _, p := range slices.Sorted(maps.Keys(grants)) {
		gr, _ := grants[p].(map[string]any)
		s := fmt.Sprintf("project %s (paths %s; versions %s", p, listOrNone(strs(gr, "paths")), listOrNone(strs(gr, "versions")))
		if truth(gr, "working_docs") {
			s += "; working docs"
		}
		parts = append(parts, s+")")
	}
	if len(grants) == 0 {
		parts = append(parts, "no project")
	}
	return strings.Join(parts, ", ")
}

func diffAgent(g *GrantDiff, subject string, o, n map[string]any) {
	diffSet(g, subject, "tool", strs(o, "tools"), strs(n, "tools"))
	diffSet(g, subject, "write tool", strs(o, "write_tools"), strs(n, "write_tools"))
	og, ng := obj(o, "grants"), obj(n, "grants")
	for _, p := range slices.Sorted(maps.Keys(union(og, ng))) {
		o, wasThere := og[p].(map[string]any)
		n, isThere := ng[p].(map[string]any)
		switch {
		case !wasThere:
			g.add(Widens, subject, "gains project %s: %s", p, describeGrant(n))
		case !isThere:
			g.add(Narrows, subject, "loses project %s", p)
		default:
			diffGrant(g, subject, "project "+p+" ", o, n)
		}
	}
}

func describeGrant(gr map[string]any) string {
	s := fmt.Sprintf("paths %s; versions %s", listOrNone(strs(gr, "paths")), listOrNone(strs(gr, "versions")))
	if truth(gr, "working_docs") {
		s += "; working docs"
	}
	return s
}

func diffGrant(g *GrantDiff, subject, prefix string, o, n map[string]any) {
	diffPaths(g, subject, prefix+"path", strs(o, "paths"), strs(n, "paths"))
	diffSet(g, subject, prefix+"version", strs(o, "versions"), strs(n, "versions"))
	diffFlag(g, subject, prefix+"working docs", truth(o, "working_docs"), truth(n, "working_docs"))
}

// diffHumans compares the people's grant: every person (tools, public
// projects, paths, versions), anonymous readers (feedback) and the
// maintainer roles (working docs).
func diffHumans(g *GrantDiff, o, n map[string]any) {
	const people = "people"
	diffSet(g, people, "tool", strs(o, "tools"), strs(n, "tools"))
	diffSet(g, people, "write tool", strs(o, "write_tools"), strs(n, "write_tools"))
	diffFlag(g, "anonymous readers", "feedback", truth(obj(o, "feedback"), "anonymous"), truth(obj(n, "feedback"), "anonymous"))
	diffSet(g, "maintainers", "SSO role granting working docs", strs(o, "maintainer_roles"), strs(n, "maintainer_roles"))
	op, np := obj(o, "public"), obj(n, "public")
	oRoots, nRoots := projectRoots(op), projectRoots(np)
	for _, id := range slices.Sorted(maps.Keys(union(oRoots, nRoots))) {
		or, wasThere := oRoots[id]
		nr, isThere := nRoots[id]
		switch {
		case !wasThere:
			g.add(Widens, people, "gain public project %s (root %s)", id, nr)
		case !isThere:
			g.add(Narrows, people, "lose public project %s", id)
		case or != nr:
			g.add(Changes, people, "public project %s's root moves from %s to %s", id, or, nr)
		}
	}
	diffPaths(g, people, "public path", strs(op, "paths"), strs(np, "paths"))
	diffSet(g, people, "public version", strs(op, "versions"), strs(np, "versions"))
	od, nd := obj(o, "default_scope"), obj(n, "default_scope")
	if o, n := compactJSON(od), compactJSON(nd); o != n {
		g.add(Changes, people, "default scope %s becomes %s (within the public grant)", o, n)
	}
}

func projectRoots(public map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := public["projects"].([]any)
	for _, p := range list {
		m, _ := p.(map[string]any)
		id, _ := m["id"].(string)
		root, _ := m["root"].(string)
		out[id] = root
	}
	return out
}

func diffCatalog(g *GrantDiff, o, n map[string]any) {
	if oi, ni := str(o, "index"), str(n, "index"); oi != ni {
		g.add(Changes, "catalog", "index %q becomes %q", oi, ni)
	}
	od, nd := obj(o, "datasets"), obj(n, "datasets")
	for _, p := range slices.Sorted(maps.Keys(union(od, nd))) {
		ov, nv := obj(od, p), obj(nd, p)
		for _, v := range slices.Sorted(maps.Keys(union(ov, nv))) {
			os, ns := obj(ov, v), obj(nv, v)
			for _, status := range slices.Sorted(maps.Keys(union(os, ns))) {
				diffSet(g, "catalog", fmt.Sprintf("%s %s %s dataset", p, v, status), strs(os, status), strs(ns, status))
			}
		}
	}
}

// compactJSON writes v as one line of JSON (object keys sorted).
func compactJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}
