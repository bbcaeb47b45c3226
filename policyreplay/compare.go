package policyreplay

import (
	"slices"
	"strings"

	"github.com/wikigate/wikigate/policies"
)

// Flip kinds. A widening lets a caller see more than before; allow→deny
// breaks a caller that worked. Both fail a replay (CI gate).
const (
	AllowToDeny = "allow→deny"
	DenyToAllow = "deny→allow"
	Widened     = "widened"      // still allowed, with more projects, paths, datasets, pages, working docs or write
	Narrowed    = "narrowed"     // still allowed, with less
	CodeChanged = "deny changed" // still denied, with another code
)

// Failing says whether a flip kind fails the replay.
func Failing(kind string) bool {
	return kind == AllowToDeny || kind == DenyToAllow || kind == Widened
}

// outcome is what the comparison looks at in a decision.
type outcome struct {
	allow    bool
	code     string
	grants   []string // "project:x", "path:y", "dataset:z", "page:p", "version:v", "working", "write", "write_tool:t"
	errorMsg string
}

func outcomeOf(w *policies.WireDecision, errMsg string) outcome {
	if w == nil {
		return outcome{code: "policy_unavailable", errorMsg: errMsg}
	}
	o := outcome{allow: w.Allow, code: w.Code}
	if !w.Allow {
		return o
	}
	if s := w.Scope; s != nil {
		o.grants = append(o.grants, prefixed("project:", s.Projects)...)
		o.grants = append(o.grants, prefixed("path:", s.Paths)...)
		o.grants = append(o.grants, "version:"+s.Version)
		if s.IncludeWorkingDocs {
			o.grants = append(o.grants, "working")
		}
	}
	for p, paths := range w.ProjectPaths {
		o.grants = append(o.grants, prefixed("path:"+p+":", paths)...)
	}
	for _, d := range w.Datasets {
		o.grants = append(o.grants, "dataset:"+d.ID)
	}
	o.grants = append(o.grants, prefixed("page:", w.Pages)...)
	if w.Write {
		o.grants = append(o.grants, "write")
	}
	o.grants = append(o.grants, prefixed("write_tool:", w.WriteTools)...)
	slices.Sort(o.grants)
	o.grants = slices.Compact(o.grants)
	return o
}

func prefixed(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// flipKind classifies before → after; "" when nothing a caller sees changed.
func flipKind(before, after outcome) (kind string, added, removed []string) {
	switch {
	case before.allow && !after.allow:
		return AllowToDeny, nil, nil
	case !before.allow && after.allow:
		return DenyToAllow, nil, nil
	case !before.allow:
		if before.code != after.code {
			return CodeChanged, nil, nil
		}
		return "", nil, nil
	}
	added, removed = diff(after.grants, before.grants), diff(before.grants, after.grants)
	added = slices.DeleteFunc(added, func(g string) bool { return withinPathGrant(g, before.grants) })
	switch {
	case len(added) > 0:
		return Widened, added, removed
	case len(removed) > 0:
		return Narrowed, nil, removed
	}
	return "", nil, nil
}

// withinPathGrant reports whether g is a path grant inside one of grants
// ("path:a/b/c" inside "path:a/b", "path:p:a/b/c" inside "path:p:a/b"): a
// path grant covers the pages under it, so moving a grant down the tree
// narrows it and must not read as a widening.
func withinPathGrant(g string, grants []string) bool {
	if !strings.HasPrefix(g, "path:") {
		return false
	}
	for _, b := range grants {
		if strings.HasPrefix(b, "path:") && strings.HasPrefix(g, b+"/") {
			return true
		}
	}
	return false
}

// diff lists the elements of a not in b (both sorted).
func diff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}
