package policyreplay

import (
	"fmt"
	"slices"
	"strings"
)

// diffSet reports members of a list (tools, versions, dataset ids) the
// candidate adds (wider) or drops (narrower).
func diffSet(g *GrantDiff, subject, what string, old, cand []string) {
	for _, s := range cand {
		if !slices.Contains(old, s) {
			g.add(Widens, subject, "gains %s %s", what, s)
		}
	}
	for _, s := range old {
		if !slices.Contains(cand, s) {
			g.add(Narrows, subject, "loses %s %s", what, s)
		}
	}
}

// diffPaths compares path grants, which cover everything below them
// (rego/paths.rego path_within): a new path inside an old one widens
// nothing, and an old path is lost only when no new path covers it.
func diffPaths(g *GrantDiff, subject, what string, old, cand []string) {
	for _, p := range cand {
		if !covered(p, old) {
			g.add(Widens, subject, "gains %s %s", what, p)
		}
	}
	for _, p := range old {
		if !covered(p, cand) {
			g.add(Narrows, subject, "loses %s %s", what, p)
		} else if !slices.Contains(cand, p) {
			g.add(Changes, subject, "%s %s now covered by a wider path", what, p)
		}
	}
}

func covered(p string, bases []string) bool {
	for _, b := range bases {
		if p == b || strings.HasPrefix(p, b+"/") {
			return true
		}
	}
	return false
}

func diffFlag(g *GrantDiff, subject, what string, old, cand bool) {
	switch {
	case !old && cand:
		g.add(Widens, subject, "gains %s", what)
	case old && !cand:
		g.add(Narrows, subject, "loses %s", what)
	}
}

func union[V any](a, b map[string]V) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func obj(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func str(m map[string]any, key string) string {
	v, _ := m[key].(string)
	return v
}

func truth(m map[string]any, key string) bool {
	v, _ := m[key].(bool)
	return v
}

func strs(m map[string]any, key string) []string {
	list, _ := m[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
