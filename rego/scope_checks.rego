package wikigate

# Scope checks (docs/protocol.md, Order of checks: scope): the effective scope
# must be a subset of the grant, and of the session's scope on a turn.
# Anything wider is forbidden_scope; it is never silently narrowed. Reasons
# name only what the caller asked for, never what others are granted.

# Only derived problems are reported once: with requested paths that no grant
# covers, the path problem below already says what is wrong.
scope_problems contains "no project is granted to you" if {
	effective_projects == []
	req_paths == []
}

scope_problems contains sprintf("project %q is not in your grant", [p]) if {
	some p in effective_projects
	not caller_grants[p]
}

scope_problems contains sprintf("path %q is not in your grant", [x]) if {
	some x in ungranted_paths
	not left_with_the_session(x)
}

# left_with_the_session: on a turn that leaves its session (another
# project, say), x is a path the turn did not ask for but took from the
# session, so it need not fit the turn's projects. It is not the caller's
# request: the session problem below says what is wrong.
left_with_the_session(x) if {
	on_session
	outside_session
	not x in object.get(given, "paths", [])
}

# A requested project none of whose effective paths lies in its own grant
# (project_paths.rego). A path granted to no requested project is already
# named above, so this is only said when every path is granted.
scope_problems contains sprintf("no requested path is in project %q's grant", [p]) if {
	some p, paths in project_paths
	paths == []
	ungranted_paths == set()
}

# A project outside the grant already explains why no version is common to
# the requested projects, so this is only said when every project is granted.
scope_problems contains "no version is granted for every requested project" if {
	effective_projects != []
	not effective_version
	every p in effective_projects {
		caller_grants[p]
	}
}

scope_problems contains sprintf("version %q is not granted for project %q", [effective_version, p]) if {
	some p in effective_projects
	caller_grants[p]
	not effective_version in caller_grants[p].versions
}

scope_problems contains "working docs are not granted to you" if {
	req_working_docs
	some p in effective_projects
	not grants_working_docs(p)
}

# A get_page batch is denied only when none of its pages is readable
# (pages.rego); otherwise the unreadable ones are reported per page.
scope_problems contains sprintf("page %q is outside the scope", [page]) if {
	some page in input.pages
	readable_pages == []
}

scope_problems contains "the requested scope is outside the session's scope" if {
	on_session
	outside_session
}

# outside_session compares only what the turn asked for: parts it left out
# were taken from the session and fit by construction.
outside_session if {
	session_projects := listed(session_scope, "projects")
	some p in listed(given, "projects")
	not p in session_projects
}

outside_session if {
	session_paths := listed(session_scope, "paths")
	some x in listed(given, "paths")
	not within_any(x, session_paths)
}

outside_session if {
	session_scope.version != ""
	given.version != ""
	given.version != session_scope.version
}

outside_session if {
	given.includeWorkingDocs == true
	not session_scope.includeWorkingDocs == true
}
