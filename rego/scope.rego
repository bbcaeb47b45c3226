package wikigate

# Effective scope (docs/security.md, What the policy decides). The requested
# scope is filled in from, in order: the request itself, the session's scope
# on a session turn, the human page or public default, and finally the
# caller's grant. Every filled-in value is then checked against the grant like
# a requested one (scope_checks.rego), so a default can never exceed what is
# granted.
#
# The gateway asks once per call, so these rules are written for speed:
# lookups by key, conditions inline rather than in helper functions, and
# shortcuts for the common cases (no paths, no version) that give the same
# result as the general rule.

# The requested scope and, on a session turn, the session's scope. Rules read
# their parts directly (input.scope.paths is undefined when there is no
# scope), which is cheaper than going through these.
given := input.scope if {
	is_object(input.scope)
} else := {}

on_session if is_object(input.session.scope)

session_scope := input.session.scope if {
	on_session
} else := {}

# A scope part is given when it is a non-empty list (or string, for the
# version); an empty or missing part is left to the next source.
req_projects := input.scope.projects if {
	is_array(input.scope.projects)
	input.scope.projects != []
} else := input.session.scope.projects if {
	is_array(input.session.scope.projects)
	input.session.scope.projects != []
} else := []

req_paths := input.scope.paths if {
	is_array(input.scope.paths)
	input.scope.paths != []
} else := input.session.scope.paths if {
	is_array(input.session.scope.paths)
	input.session.scope.paths != []
} else := []

req_version := input.scope.version if {
	is_string(input.scope.version)
	input.scope.version != ""
} else := input.session.scope.version if {
	is_string(input.session.scope.version)
	input.session.scope.version != ""
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
	input.session.scope.includeWorkingDocs == true
}

# The agent branches come before the human ones, which never hold for an
# agent: an agent's call then skips the human defaults entirely.
effective_projects := req_projects if {
	req_projects != []
} else := candidate_projects if {
	input.caller.type == "agent"
} else := human_default.projects if {
	human_default
} else := candidate_projects

effective_paths := req_paths if {
	req_paths != []
} else := sort({x | some p in effective_projects; some x in caller_grants[p].paths}) if {
	input.caller.type == "agent"
} else := human_default.paths if {
	human_default
} else := sort({caller_grants[p].root | some p in effective_projects}) if {
	is_human
} else := sort({x | some p in effective_projects; some x in caller_grants[p].paths})

effective_version := req_version if {
	req_version != ""
} else := "main" if {
	input.caller.type == "agent"
	effective_projects != []
	every p in effective_projects {
		"main" in caller_grants[p].versions
	}
} else := first_common_version if {
	input.caller.type == "agent"
} else := page_version if {
	is_human
} else := human_default.version if {
	human_default
} else := "main" if {
	effective_projects != []
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

# Missing paths are filled from the effective projects' grants; for humans,
# whose grant is every public path, from the projects' public roots, so the
# scope (and its audit line) says which sections were searched.

# candidate_projects fills missing projects from the grant: those covering
# the requested paths (all granted projects when no path was given), keeping
# only those that also grant the requested version and working docs. When
# that leaves nothing, the covering projects are kept so the scope checks can
# say precisely what is missing. Without a requested version or working docs
# every covering project fits.
candidate_projects := covering_projects if {
	req_version == ""
	not req_working_docs
} else := fitting if {
	fitting := [p |
		some p in covering_projects
		version_fits(caller_grants[p])
		working_docs_fit(p)
	]
	fitting != []
} else := covering_projects

covering_projects := sort(object.keys(caller_grants)) if {
	req_paths == []
} else := sort({p |
	input.caller.type == "agent"
	some p, grant in caller_grants
	some x in req_paths
	some base in grant.paths
	path_within(x, base)
}) if {
	input.caller.type == "agent"
} else := sort({p |
	some p, grant in caller_grants
	some x in req_paths
	reaches_project(x, grant)
})

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
