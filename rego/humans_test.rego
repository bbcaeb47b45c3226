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
	d.scope == scope(["kunora-kgent", "kunora-gateway", "kunora-ops"], ["publish"], "main")
}

test_human_without_page_uses_public_default if {
	d := wikigate.decision with input as human_ask("public-read", anonymous_human, null)
	d.allow == true
	d.scope == scope(["kunora-kgent", "kunora-gateway", "kunora-ops"], ["publish"], "main")
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
