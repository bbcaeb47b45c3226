package wikigate

# Project paths. The effective scope is two flat lists, which loses which
# path belongs to which project: a caller granted project A only on
# "a/guides" and project B on a parent of "a" would otherwise reach A's
# pages anywhere under B's path. project_paths keeps the pairing: for each
# effective project the caller is granted, the effective paths that lie in
# that project's own grant. The gateway narrows its backend filters and the
# response-side check with it (protocol.Scope.ProjectPaths).
#
# - agent, paths requested (or taken from the session): the effective paths
#   within one of the project's granted paths;
# - agent, no paths requested: the project's granted paths, which are the
#   effective paths it contributed;
# - human: the effective paths within the project's public root, and the
#   root itself where an effective path is wider than it. Every published
#   project grants all of data.humans.public.paths; its root is where its
#   pages are.
#
# A project left with no path is forbidden_scope (scope_checks.rego), never
# dropped: a request is not silently narrowed.
project_paths[p] := sort({x |
	some x in effective_paths
	some base in grant.paths
	path_within(x, base)
}) if {
	input.caller.type == "agent"
	req_paths != []
	some p in effective_projects
	grant := caller_grants[p]
}

project_paths[p] := sort({x | some x in grant.paths}) if {
	input.caller.type == "agent"
	req_paths == []
	some p in effective_projects
	grant := caller_grants[p]
}

project_paths[p] := sort(paths_in_root(caller_grants[p].root)) if {
	input.caller.type == "human"
	some p in effective_projects
}

paths_in_root(root) := {x | some x in effective_paths; path_within(x, root)} | {root |
	some x in effective_paths
	path_within(root, x)
}

# reaches_project(x, grant) is true when requested path x can hold pages of
# the project: x lies in one of an agent's granted paths, or x and a
# published project's root overlap (humans).
reaches_project(x, grant) if {
	input.caller.type == "agent"
	some base in grant.paths
	path_within(x, base)
}

reaches_project(x, grant) if {
	input.caller.type == "human"
	path_within(x, grant.root)
}

reaches_project(x, grant) if {
	input.caller.type == "human"
	path_within(grant.root, x)
}
