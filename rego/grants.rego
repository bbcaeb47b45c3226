package wikigate

# caller_grants maps each project the caller may read to
# {paths, versions, working_docs}: data.agents[id].grants for agents, the
# public grant for humans (working docs only with a maintainer role), which
# also carries the project's public root.
caller_grants := object.get(agent, "grants", {}) if is_agent

caller_grants := {p.id: object.union(human_grant, {"root": p.root}) | some p in data.humans.public.projects} if is_human

human_grant := {
	"paths": data.humans.public.paths,
	"versions": data.humans.public.versions,
	"working_docs": is_maintainer,
}

# grants_working_docs(project) is true only for an explicit grant (§6.3).
grants_working_docs(project) if caller_grants[project].working_docs == true

# path_granted(x) is true when a grant of an effective project covers x.
# That alone does not say which project x is granted for: project_paths
# (project_paths.rego) keeps that pairing.
path_granted(x) if {
	some project in effective_projects
	some base in caller_grants[project].paths
	path_within(x, base)
}
