package policies

import (
	"maps"
	"slices"

	"github.com/wikigate/wikigate/protocol"
)

// The cross-check (crosscheck.go) needs calls that reach every branch of
// the policy that real traffic reaches: known and unknown agents, granted
// and ungranted tools, scopes inside, across and outside a grant, people
// anonymous and signed in, on both site modes, with and without a page
// and a session. corpusOf derives them from the data being loaded, read in
// the layout rego/README.md documents (a policy with another layout still
// gets the unknown-caller, people and no-scope calls), and adds the calls
// the serving revision answered most recently.
const (
	// corpusAgents bounds the agents taken from data.agents, spread over
	// the sorted ids, so a load with 10,000 agents checks a sample.
	corpusAgents = 16
	// corpusMax bounds the calls cross-checked at one load.
	corpusMax = 1200
)

// corpusTools are the tools the gate asks about, and one no policy grants.
var corpusTools = []string{"search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task", "wikigate-crosscheck-tool"}

// outsidePath lies outside any sensible grant.
const outsidePath = "wikigate-crosscheck/outside"

// corpusOf is the cross-check's calls for documents (the data), recent
// first.
func corpusOf(documents map[string]any, recent []Input) []Input {
	c := &corpus{calls: slices.Clone(recent)}
	agents := objectAt(documents, "agents")
	for _, id := range sample(slices.Sorted(maps.Keys(agents)), corpusAgents) {
		c.agent(id, objectAt(agents, id))
	}
	c.agent("wikigate-crosscheck-unknown-agent", nil)
	c.people(objectAt(documents, "humans"))
	if len(c.calls) > corpusMax {
		c.calls = c.calls[:corpusMax]
	}
	return c.calls
}

type corpus struct{ calls []Input }

func (c *corpus) add(in Input) { c.calls = append(c.calls, in) }

// agent adds, for one agent, each tool it may call (and one it may not)
// without a scope and each of its grant's scopes with the tools in turn.
func (c *corpus) agent(id string, entry map[string]any) {
	tools := slices.Compact(slices.Sorted(slices.Values(append(stringsAt(entry, "tools"), corpusTools...))))
	caller := Caller{Type: "agent", ID: id, Credential: "jwt"}
	for _, tool := range tools {
		c.add(agentCall(caller, tool, nil))
	}
	scopes := grantScopes(objectAt(entry, "grants"))
	for i, scope := range scopes {
		in := agentCall(caller, tools[i%len(tools)], scope)
		if in.Tool == "get_page" && len(scope.Paths) > 0 {
			in.Pages = []string{scope.Paths[0] + "/index.md", outsidePath + "/index.md"}
		}
		c.add(in)
		if i%3 == 0 {
			turn := agentCall(caller, "ask", nil)
			turn.Endpoint = "/answer/sessions/s/turns"
			turn.Session = &SessionInput{Scope: *scope}
			c.add(turn)
		}
	}
}

func agentCall(caller Caller, tool string, scope *protocol.Scope) Input {
	action := "read"
	if tool == "create_feedback" || tool == "create_improvement_task" {
		action = "write"
	}
	return Input{Endpoint: "/agent/tools/" + tool, Tool: tool, Action: action, SiteMode: "public-read", Caller: caller, Scope: scope}
}

// grantScopes are scopes derived from a grant (project → {paths, versions,
// working_docs}): each project alone, at each of its versions and with
// working docs, each path, a path below it and beside it, all projects at
// once, and a path and a version no grant holds.
func grantScopes(grants map[string]any) []*protocol.Scope {
	scopes := []*protocol.Scope{{Paths: []string{outsidePath}}, {Version: "wikigate-crosscheck-version"}, {IncludeWorkingDocs: true}}
	projects := slices.Sorted(maps.Keys(grants))
	if len(projects) > 1 {
		scopes = append(scopes, &protocol.Scope{Projects: projects})
	}
	for _, p := range projects {
		grant := objectAt(grants, p)
		scopes = append(scopes, &protocol.Scope{Projects: []string{p}}, &protocol.Scope{Projects: []string{p}, IncludeWorkingDocs: true})
		for _, v := range stringsAt(grant, "versions") {
			scopes = append(scopes, &protocol.Scope{Projects: []string{p}, Version: v})
		}
		for _, x := range stringsAt(grant, "paths") {
			scopes = append(scopes, &protocol.Scope{Paths: []string{x}}, &protocol.Scope{Paths: []string{x + "/guides"}},
				&protocol.Scope{Paths: []string{x + "-x"}}, &protocol.Scope{Projects: []string{p}, Paths: []string{x, outsidePath}})
		}
	}
	return scopes
}

// people adds the people's routes for an anonymous reader, a signed-in
// reader and a maintainer on both site modes, without a scope, with each
// public project's scope and root, and asked from a page.
func (c *corpus) people(humans map[string]any) {
	callers := []Caller{
		{Type: "human", Anonymous: true, Credential: "anonymous"},
		{Type: "human", ID: "wikigate-crosscheck-reader", Roles: []string{"reader"}, Credential: "sso"},
	}
	for _, role := range stringsAt(humans, "maintainer_roles") {
		callers = append(callers, Caller{Type: "human", ID: "wikigate-crosscheck-maintainer", Roles: []string{role}, Credential: "sso"})
	}
	scopes := []*protocol.Scope{nil, {Paths: []string{outsidePath}}, {IncludeWorkingDocs: true}}
	var pages []*Page
	for _, project := range arrayAt(objectAt(humans, "public"), "projects") {
		entry, _ := project.(map[string]any)
		id, _ := entry["id"].(string)
		root, _ := entry["root"].(string)
		scopes = append(scopes, &protocol.Scope{Projects: []string{id}}, &protocol.Scope{Paths: []string{root}})
		pages = append(pages, &Page{Path: root + "/guide.md"}, &Page{Path: root + "/guide.md", Version: "v1.0"})
	}
	routes := []struct{ endpoint, tool, action string }{
		{"/answer/ask", "ask", "read"}, {"/answer/search", "search", "read"},
		{"/answer/sessions", "ask", "read"}, {"/answer/feedback", "create_feedback", "write"},
	}
	i := 0
	for _, caller := range callers {
		for _, mode := range []string{"public-read", "authenticated-read"} {
			for _, r := range routes {
				for _, scope := range scopes {
					in := Input{Endpoint: r.endpoint, Tool: r.tool, Action: r.action, SiteMode: mode, Caller: caller, Scope: scope}
					if len(pages) > 0 && i%2 == 0 {
						in.Page = pages[i/2%len(pages)]
					}
					i++
					c.add(in)
				}
			}
		}
	}
}

// sample is up to n of sorted, spread evenly from first to last.
func sample(sorted []string, n int) []string {
	if len(sorted) <= n {
		return sorted
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, sorted[i*(len(sorted)-1)/(n-1)])
	}
	return out
}

// objectAt is m[key] when it is an object; nil otherwise.
func objectAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// arrayAt is m[key] when it is an array; nil otherwise.
func arrayAt(m map[string]any, key string) []any {
	v, _ := m[key].([]any)
	return v
}

// stringsAt is the strings of the array m[key].
func stringsAt(m map[string]any, key string) []string {
	var out []string
	for _, v := range arrayAt(m, key) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
