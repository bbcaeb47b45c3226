package wikigate_test

import data.wikigate

# The review's leak: kunora-kgent granted only on its guides, kunora-gateway
# on the whole components directory, which also holds kunora-kgent's pages.
components := "publish/system/components"

kgent_guides := concat("/", [kgent, "guides"])

kgent_internal := concat("/", [kgent, "internal"])

split_grants := json.patch(data.agents, [{"op": "replace", "path": "/kunora-coding-agent/grants", "value": {
	"kunora-kgent": {"paths": [kgent_guides], "versions": ["main"], "working_docs": false},
	"kunora-gateway": {"paths": [components], "versions": ["main"], "working_docs": false},
}}])

test_project_paths_keep_each_projects_own_grant if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
		with data.agents as split_grants
	d.allow == true
	d.scope == scope(["kunora-gateway", "kunora-kgent"], [components, kgent_guides], "main")
	d.project_paths == {"kunora-gateway": [components], "kunora-kgent": [kgent_guides]}
}

test_project_paths_with_requested_projects_only if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", {"projects": ["kunora-kgent", "kunora-gateway"]})
		with data.agents as split_grants
	d.project_paths == {"kunora-gateway": [components], "kunora-kgent": [kgent_guides]}
}

test_project_without_a_granted_requested_path_forbidden if {
	requested := scope(["kunora-kgent", "kunora-gateway"], [kgent_internal], "")
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", requested)
		with data.agents as split_grants
	d.code == "forbidden_scope"
	d.reason == `no requested path is in project "kunora-kgent"'s grant`
}

test_wide_path_granted_to_another_project_forbidden if {
	requested := scope(["kunora-kgent", "kunora-gateway"], [components], "")
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", requested)
		with data.agents as split_grants
	d.code == "forbidden_scope"
	d.reason == `no requested path is in project "kunora-kgent"'s grant`
}

test_path_granted_to_no_requested_project_forbidden if {
	requested := scope(["kunora-kgent"], [components], "")
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", requested)
		with data.agents as split_grants
	d.code == "forbidden_scope"
	d.reason == sprintf("path %q is not in your grant", [components])
}

test_path_inside_both_grants_belongs_to_both if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", scope([], [kgent_guides], ""))
		with data.agents as split_grants
	d.scope.projects == ["kunora-gateway", "kunora-kgent"]
	d.project_paths == {"kunora-gateway": [kgent_guides], "kunora-kgent": [kgent_guides]}
}

test_paths_only_fill_the_projects_granting_them if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", scope([], [kgent_internal], ""))
		with data.agents as split_grants
	d.scope.projects == ["kunora-gateway"]
	d.project_paths == {"kunora-gateway": [kgent_internal]}
}

test_session_turn_keeps_the_pairing if {
	session := scope(["kunora-gateway", "kunora-kgent"], [components, kgent_guides], "main")
	call := object.union(agent_call("kunora-coding-agent", "ask", null), {"session": {"scope": session}})
	d := wikigate.decision with input as call
		with data.agents as split_grants
	d.project_paths == {"kunora-gateway": [components, kgent_guides], "kunora-kgent": [kgent_guides]}
}

test_project_paths_of_two_shipped_projects if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", scope([], [gateway, kgent], ""))
	d.project_paths == {"kunora-gateway": [gateway], "kunora-kgent": [kgent]}
}

test_project_paths_of_a_full_grant if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "search", null)
	d.project_paths == {"kunora-gateway": [gateway], "kunora-kgent": [kgent, kgent_extras]}
}

test_project_with_empty_grant_paths_forbidden if {
	agents := json.patch(data.agents, [{"op": "replace", "path": "/kunora-coding-agent/grants/kunora-kgent/paths", "value": []}])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
		with data.agents as agents
	d.code == "forbidden_scope"
	d.reason == `no requested path is in project "kunora-kgent"'s grant`
}

test_denial_carries_no_project_paths if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", scope(["kunora-ops"], [], ""))
	d.allow == false
	not d.project_paths
}
