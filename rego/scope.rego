package wikigate

# Effective scope (protocol §6, DESIGN §5). The requested scope is filled in
# from, in order: the request itself, the session's scope on a session turn,
# the human page or public default, and finally the caller's grant. Every
# filled-in value is then checked against the grant like a requested one
# (scope_checks.rego), so a default can never exceed what is granted.

given := input.scope if {
	is_object(input.scope)
} else := {}

on_session if is_object(input.session.scope)

session_scope := input.session.scope if {
	on_session
} else := {}

req_projects := v if {
	v := listed(given, "projects")
} else := v if {
	v := listed(session_scope, "projects")
} else := []

req_paths := v if {
	v := listed(given, "paths")
} else := v if {
	v := listed(session_scope, "paths")
} else := []

req_version := v if {
	v := given.version
	v != ""
} else := v if {
	v := session_scope.version
	v != ""
} else := ""

# A turn without a scope keeps the session's working-docs flag; any explicit
# scope states its own.
default req_working_docs := false

req_working_docs if {
	is_object(input.scope)
	input.scope.includeWorkingDocs == true
}

req_working_docs if {
	not is_object(input.scope)
	session_scope.includeWorkingDocs == true
}

effective_projects := req_projects if {
	count(req_projects) > 0
} else := v if {
	v := human_default.projects
} else := candidate_projects

effective_paths := req_paths if {
	count(req_paths) > 0
} else := v if {
	v := human_default.paths
} else := sort({x | some p in effective_projects; some x in caller_grants[p].paths})

effective_version := req_version if {
	req_version != ""
} else := v if {
	v := human_default.version
} else := "main" if {
	count(effective_projects) > 0
	every p in effective_projects {
		"main" in caller_grants[p].versions
	}
} else := first_common_version

effective_scope := {
	"projects": effective_projects,
	"paths": effective_paths,
	"version": effective_version,
	"includeWorkingDocs": req_working_docs,
}

# candidate_projects fills missing projects from the grant: those covering
# the requested paths (all granted projects when no path was given), keeping
# only those that also grant the requested version and working docs. When
# that leaves nothing, the covering projects are kept so the scope checks can
# say precisely what is missing.
candidate_projects := fitting if {
	fitting := sort([p |
		some p in covering_projects
		version_fits(caller_grants[p])
		working_docs_fit(p)
	])
	count(fitting) > 0
} else := covering_projects

covering_projects := sort([p |
	some p, grant in caller_grants
	covers_requested_paths(grant)
])

covers_requested_paths(_) if count(req_paths) == 0

covers_requested_paths(grant) if {
	some x in req_paths
	within_any(x, grant.paths)
}

version_fits(_) if req_version == ""

version_fits(grant) if req_version in grant.versions

working_docs_fit(_) if not req_working_docs

working_docs_fit(project) if grants_working_docs(project)

# first_common_version is the first version (in the data's order) that every
# effective project grants.
first_common_version := versions[0] if {
	versions := [v |
		some v in caller_grants[effective_projects[0]].versions
		every p in effective_projects {
			v in caller_grants[p].versions
		}
	]
}
