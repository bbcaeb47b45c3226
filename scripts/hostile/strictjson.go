package main

import (
	"context"
	"strings"
)

// jsonAttack adds one hostile member to every route's valid body. A proxy
// or WAF in front of the gate must never read a different request than the
// gate does, so each must be 400 invalid_request naming the member.
type jsonAttack struct {
	name  string
	extra func(rt toolRoute) string // the member added
	field func(rt toolRoute) string // what the error message must name
}

func fixed(s string) func(toolRoute) string { return func(toolRoute) string { return s } }

var jsonAttacks = []jsonAttack{
	{"dup-keys", func(rt toolRoute) string { return rt.first }, memberName},
	{"case-variant-keys", fixed(`"SCOPE":{"projects":["kunora-kgent"]}`), fixed("SCOPE")},
	{"case-variant-question", fixed(`"Question":"what else?"`), fixed("Question")},
	{"unicode-folded-key", fixed(`"ſcope":{"projects":["kunora-kgent"]}`), fixed("ſcope")},
	{"unicode-folded-nested-key", fixed(`"scope":{"includeWorKingDocs":false}`), fixed("includeWorKingDocs")},
	{"invalid-utf8", fixed("\"caller\":{\"purpose\":\"audit\xff\xfe\"}"), fixed("purpose")},
}

// memberName is the name of the route's first member: "question" of
// `"question":"..."`.
func memberName(rt toolRoute) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(rt.first, `"`), `"`)
	return name
}

func strictJSONAttacks(ctx context.Context, t *target) []result {
	routes, err := toolRoutes(ctx, t)
	if err != nil {
		return []result{{name: "strict-json", observed: err.Error(), expected: "a session to attack the turn route"}}
	}
	out := make([]result, 0, len(jsonAttacks))
	for _, a := range jsonAttacks {
		out = append(out, a.run(ctx, t, routes))
	}
	return out
}

func (a jsonAttack) run(ctx context.Context, t *target, routes []toolRoute) result {
	statuses, unnamed := tally{}, []string{}
	for _, rt := range routes {
		r := t.post(ctx, rt.path, rt.header, rt.body(a.extra(rt)))
		statuses.add(r.String())
		if r.code == "invalid_request" && !strings.Contains(r.message, a.field(rt)) {
			unnamed = append(unnamed, rt.name)
		}
	}
	res := result{
		pass:     statuses.only("400 invalid_request") && len(unnamed) == 0,
		name:     a.name,
		observed: "status=" + statuses.String(),
		expected: "400 invalid_request naming the member on every route",
	}
	if len(unnamed) > 0 {
		res.observed += " message-does-not-name-it=" + strings.Join(unnamed, ",")
	}
	return res
}
