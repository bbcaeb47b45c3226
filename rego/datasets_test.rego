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
	catalog := [x | some x in data.catalog.datasets; x.id != kgent_main_approved]
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
	d.reason == `no approved dataset for project "kunora-kgent" at version "main"`
}

test_working_dataset_alone_not_enough if {
	catalog := [x | some x in data.catalog.datasets; x.id != kgent_main_approved]
	d := wikigate.decision with input as agent_call("docs-maintainer-agent", "ask", working_scope(["kunora-kgent"], [], "main"))
		with data.catalog.datasets as catalog
	d.code == "dataset_not_allowed"
}

test_retired_datasets_ignored if {
	retired := {"id": "retired", "project": "kunora-kgent", "version": "main", "status": "retired"}
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", null)
		with data.catalog.datasets as array.concat(data.catalog.datasets, [retired])
	dataset_ids(d) == {kgent_main_approved}
}

test_scope_checked_before_datasets if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "ask", scope([], [], "v1.0"))
		with data.catalog.datasets as []
	d.code == "forbidden_scope"
}
