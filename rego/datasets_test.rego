package wikigate_test

import data.wikigate

test_datasets_are_approved_only_by_default if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "ask", scope(["kunora-kgent", "kunora-gateway"], [], "v1.0"))
	count(d.datasets) == 2
	every x in d.datasets {
		x.status == "approved"
		x.version == "v1.0"
	}
}

test_datasets_carry_catalog_fields if {
	d := wikigate.decision with input as agent_call("ops-readonly-agent", "search", null)
	d.datasets == [{"id": ops_main_approved, "project": "kunora-ops", "version": "main", "status": "approved"}]
}

test_missing_approved_dataset_not_allowed if {
	catalog := json.remove(data.catalog.datasets, ["kunora-kgent/main/approved"])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
	d.reason == `no approved dataset for project "kunora-kgent" at version "main"`
}

test_empty_approved_list_not_allowed if {
	catalog := json.patch(data.catalog.datasets, [{"op": "replace", "path": "/kunora-kgent/main/approved", "value": []}])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
}

test_project_missing_from_catalog_not_allowed if {
	catalog := json.remove(data.catalog.datasets, ["kunora-kgent"])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
}

test_working_dataset_alone_not_enough if {
	catalog := json.remove(data.catalog.datasets, ["kunora-kgent/main/approved"])
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "ask", working_scope(["kunora-kgent"], [], "main"))
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
}

test_retired_datasets_ignored if {
	catalog := json.patch(data.catalog.datasets, [{"op": "add", "path": "/kunora-kgent/main/retired", "value": ["retired"]}])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	dataset_ids(d) == {kgent_main_approved}
}

test_every_dataset_of_a_project_is_used if {
	catalog := json.patch(data.catalog.datasets, [{"op": "add", "path": "/kunora-kgent/main/approved/-", "value": "second"}])
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	dataset_ids(d) == {kgent_main_approved, "second"}
}

test_working_datasets_only_with_working_docs if {
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "ask", working_scope(["kunora-kgent", "kunora-gateway"], [], "main"))
	count(d.datasets) == 4
	{x.status | some x in d.datasets} == {"approved", "working"}
}

test_scope_checked_before_datasets if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", scope([], [], "v1.0"))
		with data.catalog.datasets as {}
	d.code == "forbidden_scope"
}
