package policyreplay

import (
	"encoding/json"
	"maps"
	"slices"
)

// diffLimits compares rate limits as each caller gets them: an agent's
// override or else the agents' limit; a higher limit, or none where there
// was one (rego/limits.rego: a tool without an entry is not limited),
// widens. agents are those present in both: a new agent is reported whole.
func diffLimits(g *GrantDiff, o, n map[string]any, agents []string) {
	om, nm := obj(o, "per_minute"), obj(n, "per_minute")
	for _, id := range agents {
		oo, no := obj(obj(om, "agent_overrides"), id), obj(obj(nm, "agent_overrides"), id)
		for _, tool := range limitKeys(obj(om, "agents"), obj(nm, "agents"), oo, no) {
			diffLimit(g, "agent "+id, tool+" calls a minute", firstOf(oo[tool], obj(om, "agents")[tool]), firstOf(no[tool], obj(nm, "agents")[tool]))
		}
	}
	for _, class := range []string{"humans", "anonymous", "anonymous_total"} {
		oc, nc := obj(om, class), obj(nm, class)
		for _, tool := range limitKeys(oc, nc) {
			diffLimit(g, "limits."+class, tool+" calls a minute", oc[tool], nc[tool])
		}
	}
	oh, nh := obj(o, "per_hour"), obj(n, "per_hour")
	for _, kind := range []string{"sessions", "feedback"} {
		ok, nk := obj(oh, kind), obj(nh, kind)
		for _, class := range limitKeys(ok, nk) {
			diffLimit(g, "limits."+class, "new "+kind+" an hour", ok[class], nk[class])
		}
	}
}

func limitKeys(ms ...map[string]any) []string {
	keys := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

func firstOf(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// diffLimit compares two limits; nil is no limit.
func diffLimit(g *GrantDiff, subject, what string, old, cand any) {
	o, oSet := number(old)
	n, nSet := number(cand)
	switch {
	case oSet && !nSet:
		g.add(Widens, subject, "%s: limit of %v removed (unlimited)", what, o)
	case !oSet && nSet:
		g.add(Narrows, subject, "%s: limited to %v (was unlimited)", what, n)
	case oSet && n > o:
		g.add(Widens, subject, "%s raised from %v to %v", what, o, n)
	case oSet && n < o:
		g.add(Narrows, subject, "%s lowered from %v to %v", what, o, n)
	}
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	case int:
		return float64(t), true
	}
	return 0, false
}
