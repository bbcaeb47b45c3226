package wikigate

# caller_grants maps each project the caller may read to
# {paths, versions, working_docs}: data.agents[id].grants for agents, the
# public grant for humans (working docs only with a maintainer role), which
# also carries the project's public root.
caller_grants := object.get(agent, "grants", {}) if input.caller.type == "agent"

caller_grants := {p.id: object.union(human_grant, {"root": p.root}) | some p in data.humans.public.projects} if input.caller.type == "human"

human_grant := {
	"paths": data.humans.public.paths,
	"versions": data.humans.public.versions,
	"working_docs": is_maintainer,
}

# grants_working_docs(project) is true only for an explicit grant (§6.3).
grants_working_docs(project) if caller_grants[project].working_docs == true

# ungranted_paths are the effective paths that no grant of an effective
# project covers. Being covered alone does not say which project a path is
# granted for: project_paths (project_paths.rego) keeps that pairing. For an
# agent a path is covered exactly when project_paths pairs it with a
# project, so that is looked up instead of matched again; an agent that
# requested no paths has its effective paths taken from its grants, so
# none is ungranted (the shortcut gives the general rule's answer).
ungranted_paths := set() if {
	input.caller.type == "agent"
	req_paths == []
} else := {x |
	some x in effective_paths
	not x in agent_paired_paths
} if {
	input.caller.type == "agent"
} else := {x |
	some x in effective_paths
	not path_granted(x)
}

agent_paired_paths := {x | some paths in project_paths; some x in paths}

path_granted(x) if {
	some project in effective_projects
	some base in caller_grants[project].paths
	path_within(x, base)
}
