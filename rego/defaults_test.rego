package wikigate_test

import data.wikigate

test_missing_scope_is_full_grant if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
	d.scope == {"projects": ["kunora-kgent"], "paths": [kgent], "version": "main", "includeWorkingDocs": false}
	dataset_ids(d) == {kgent_main_approved}
}

test_missing_scope_covers_every_granted_project if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", null)
	d.scope == {
		"projects": ["kunora-gateway", "kunora-kgent"],
		"paths": [gateway, kgent, kgent_extras],
		"version": "main",
		"includeWorkingDocs": false,
	}
	dataset_ids(d) == {kgent_main_approved, gateway_main_approved}
}

test_empty_scope_object_is_full_grant if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", {"includeWorkingDocs": false})
	d.scope == scope(["kunora-kgent"], [kgent], "main")
}

test_projects_from_requested_paths if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope([], [gateway], ""))
	d.scope.projects == ["kunora-gateway"]
	dataset_ids(d) == {gateway_main_approved}
}

test_paths_from_requested_projects if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope(["kunora-kgent"], [], ""))
	d.scope.paths == [kgent, kgent_extras]
}

test_version_from_request_kept if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", scope([], [], "v1.0"))
	d.scope == scope(["kunora-ops"], [ops], "v1.0")
}

test_version_defaults_to_first_granted_without_main if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/ops-readonly-agent/grants/kunora-ops/versions", "value": ["v1.0"]}])
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", null)
		with data.agents as agents
	d.scope.version == "v1.0"
}

test_default_projects_keep_those_granting_the_version if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/docs-maintainer-agent/grants/kunora-gateway/versions", "value": ["main"]}])
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope([], [], "v1.0"))
		with data.agents as agents
	d.scope.projects == ["kunora-kgent"]
}

test_no_common_version_forbidden if {
	agents := json.patch(data.agents, [
		{"op": "replace", "path": "/docs-maintainer-agent/grants/kunora-gateway/versions", "value": ["v1.0"]},
		{"op": "replace", "path": "/docs-maintainer-agent/grants/kunora-kgent/versions", "value": ["v2.0"]},
	])
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", null)
		with data.agents as agents
	d.code == "forbidden_scope"
	d.reason == "no version is granted for every requested project"
}

test_agent_without_grants_forbidden if {
	agents := json.remove(data.agents, ["ops-readonly-agent/grants"])
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", null)
		with data.agents as agents
	d.code == "forbidden_scope"
	d.reason == "no project is granted to you"
}

test_uncovered_path_is_the_only_reason if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", scope([], [gateway], ""))
	d.reason == sprintf("path %q is not in your grant", [gateway])
}

test_working_docs_without_projects_keep_projects_granting_them if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/docs-maintainer-agent/grants/kunora-gateway/working_docs", "value": false}])
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "ask", working_scope([], [], ""))
		with data.agents as agents
	d.scope.projects == ["kunora-kgent"]
	d.scope.includeWorkingDocs == true
}

test_projects_from_several_paths_listed_once if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope([], [kgent, kgent_extras], ""))
	d.scope.projects == ["kunora-kgent"]
	dataset_ids(d) == {kgent_main_approved}
}

test_projects_from_paths_of_two_projects if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope([], [gateway, kgent], ""))
	d.scope.projects == ["kunora-gateway", "kunora-kgent"]
	d.scope.paths == [gateway, kgent]
}
