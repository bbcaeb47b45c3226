package wikigate_test

import data.wikigate

test_human_page_default_is_the_page_section if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, concat("/", [kgent, "index.md"]))
	d.allow == true
	d.scope == scope(["kunora-kgent"], [kgent], "main")
	dataset_ids(d) == {kgent_main_approved}
}

test_human_page_default_nested_section if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, concat("/", [kgent, "guides/memory.md"]))
	d.scope.paths == [concat("/", [kgent, "guides"])]
	d.scope.projects == ["kunora-kgent"]
}

test_human_page_default_on_sibling_prefix_project if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, concat("/", [gateway, "routes.md"]))
	d.scope.projects == ["kunora-gateway"]
}

test_human_page_default_keeps_requested_version if {
	requested := {"version": "v1.0", "includeWorkingDocs": false}
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, requested, concat("/", [ops, "runbook.md"]))
	d.scope == scope(["kunora-ops"], [ops], "v1.0")
}

test_human_page_outside_projects_uses_public_default if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, "publish/index.md")
	d.scope == scope(["kunora-kgent", "kunora-gateway", "kunora-ops"], [ops, gateway, kgent], "main")
}

test_human_without_page_uses_public_default if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	d.allow == true
	d.scope == scope(["kunora-kgent", "kunora-gateway", "kunora-ops"], [ops, gateway, kgent], "main")
	d.project_paths == {"kunora-kgent": [kgent], "kunora-gateway": [gateway], "kunora-ops": [ops]}
	count(d.datasets) == 3
	every x in d.datasets {
		x.status == "approved"
		x.version == "main"
	}
}

test_human_explicit_scope_inside_public_grant if {
	requested := scope(["kunora-gateway"], [gateway], "v1.0")
	d := wikigate.decision with input as human_ask("public-read", reader, requested)
	d.scope == requested
}

test_human_scope_outside_publish_forbidden if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope([], ["drafts/kunora-kgent"], ""))
	d.code == "forbidden_scope"
}

test_human_unpublished_project_forbidden if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope(["secret-project"], [], ""))
	d.code == "forbidden_scope"
}

test_human_unpublished_version_forbidden if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope([], [], "v2.0"))
	d.code == "forbidden_scope"
}

test_human_working_docs_need_maintainer_role if {
	d := wikigate.decision with input as human_ask("public-read", reader, working_scope(["kunora-kgent"], [kgent], "main"))
	d.code == "forbidden_scope"
	d.reason == "working docs are not granted to you"
}

test_anonymous_human_cannot_claim_maintainer_role if {
	caller := object.union(anonymous_human, {"roles": ["wiki-maintainer"]})
	d := wikigate.decision with input as human_ask("public-read", caller, working_scope(["kunora-kgent"], [kgent], "main"))
	d.code == "forbidden_scope"
}

test_maintainer_gets_working_docs if {
	d := wikigate.decision with input as human_ask("authenticated-read", maintainer, working_scope(["kunora-kgent"], [kgent], "main"))
	d.allow == true
	dataset_ids(d) == {kgent_main_approved, kgent_main_working}
}

test_human_write_tools_enable_feedback if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	d.write == false
	d.write_tools == ["create_feedback"]
}

test_human_page_at_project_root_keeps_the_root if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, ops)
	d.scope.paths == [ops]
	d.scope.projects == ["kunora-ops"]
}

test_human_default_scope_paths_from_data_are_kept if {
	humans := json.patch(data.humans, [{"op": "add", "path": "/default_scope/paths", "value": ["publish"]}])
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
		with data.humans as humans
	d.scope.paths == ["publish"]
	d.project_paths == {"kunora-kgent": [kgent], "kunora-gateway": [gateway], "kunora-ops": [ops]}
}

# A human naming projects but no paths gets the projects' public roots, not
# every public path, so the audit scope says what was searched.
test_human_missing_paths_filled_with_project_roots if {
	d := wikigate.decision with input as human_ask("public-read", reader, {"projects": ["kunora-kgent", "kunora-ops"]})
	d.scope == scope(["kunora-kgent", "kunora-ops"], [ops, kgent], "main")
	d.project_paths == {"kunora-kgent": [kgent], "kunora-ops": [ops]}
}

test_human_page_default_project_paths_are_the_section if {
	d := wikigate.decision with input as human_ask_on_page(anonymous_human, null, concat("/", [kgent, "guides/memory.md"]))
	d.project_paths == {"kunora-kgent": [concat("/", [kgent, "guides"])]}
}

test_human_wide_path_pairs_each_project_with_its_root if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope([], ["publish/system"], ""))
	d.scope.projects == ["kunora-gateway", "kunora-kgent"]
	d.scope.paths == ["publish/system"]
	d.project_paths == {"kunora-gateway": [gateway], "kunora-kgent": [kgent]}
}

test_human_path_of_another_project_forbidden if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope(["kunora-kgent"], [gateway], ""))
	d.code == "forbidden_scope"
	d.reason == `no requested path is in project "kunora-kgent"'s grant`
}

# A public path that holds no published project's pages names no project,
# so nothing could be searched there: it is refused, not widened.
test_human_path_outside_every_project_root_forbidden if {
	d := wikigate.decision with input as human_ask("public-read", reader, scope([], ["publish/other"], ""))
	d.code == "forbidden_scope"
}

# A question asked on a versioned page (/v1.0/..., which the gateway passes
# as page.version) is answered from that version, not from main.
human_ask_on_versioned_page(caller, requested, page, version) := object.union(
	human_ask("public-read", caller, requested),
	{"page": {"path": page, "version": version}},
)

test_human_versioned_page_sets_the_default_version if {
	d := wikigate.decision with input as human_ask_on_versioned_page(anonymous_human, null, concat("/", [kgent, "index.md"]), "v1.0")
	d.allow == true
	d.scope == scope(["kunora-kgent"], [kgent], "v1.0")
	dataset_ids(d) == {kgent_v1_approved}
}

test_human_versioned_page_outside_projects_sets_the_public_default_version if {
	d := wikigate.decision with input as human_ask_on_versioned_page(anonymous_human, null, "publish/index.md", "v1.0")
	d.scope == scope(["kunora-kgent", "kunora-gateway", "kunora-ops"], [ops, gateway, kgent], "v1.0")
}

test_human_versioned_page_sets_the_version_of_a_requested_project if {
	requested := {"projects": ["kunora-gateway"], "includeWorkingDocs": false}
	d := wikigate.decision with input as human_ask_on_versioned_page(reader, requested, concat("/", [kgent, "index.md"]), "v1.0")
	d.scope == scope(["kunora-gateway"], [gateway], "v1.0")
}

test_human_requested_version_wins_over_the_page_version if {
	requested := {"version": "main", "includeWorkingDocs": false}
	d := wikigate.decision with input as human_ask_on_versioned_page(anonymous_human, requested, concat("/", [kgent, "index.md"]), "v1.0")
	d.scope == scope(["kunora-kgent"], [kgent], "main")
}

test_human_unpublished_page_version_is_forbidden_not_main if {
	d := wikigate.decision with input as human_ask_on_versioned_page(anonymous_human, null, concat("/", [kgent, "index.md"]), "v9.9")
	d.code == "forbidden_scope"
	d.reason == "version \"v9.9\" is not granted for project \"kunora-kgent\""
}

test_agent_page_version_does_not_set_its_scope if {
	call := object.union(agent_call("kunora-coding-agent", "ask", null), {"page": {"path": concat("/", [kgent, "index.md"]), "version": "v1.0"}})
	d := wikigate.decision with input as call
	d.scope.version == "main"
}
