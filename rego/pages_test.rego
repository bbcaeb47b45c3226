# get_page batches: each page is decided on its own (pages.rego).
package wikigate_test

import data.wikigate

get_page_call(id, requested, pages) := object.union(agent_call(id, "get_page", requested), {"pages": pages})

test_batch_lists_only_the_readable_pages if {
	inside := concat("/", [kgent, "index.md"])
	outside := concat("/", [gateway, "index.md"])
	d := wikigate.decision with input as get_page_call("kunora-coding-agent", null, [outside, inside])
	d.allow == true
	d.pages == [inside]
	d.scope == scope(["kunora-kgent"], [kgent], "main")
}

test_batch_keeps_the_requested_order if {
	a := concat("/", [kgent, "index.md"])
	b := concat("/", [kgent, "guides/memory.md"])
	d := wikigate.decision with input as get_page_call("kunora-coding-agent", null, [b, a])
	d.pages == [b, a]
}

test_batch_with_no_readable_page_is_denied_naming_each if {
	a := concat("/", [gateway, "index.md"])
	b := concat("/", [kgent_extras, "index.md"])
	d := wikigate.decision with input as get_page_call("kunora-coding-agent", null, [a, b])
	d.allow == false
	d.code == "forbidden_scope"
	contains(d.reason, sprintf("page %q is outside the scope", [a]))
	contains(d.reason, sprintf("page %q is outside the scope", [b]))
	not d.pages
}

test_batch_page_outside_requested_paths_is_not_readable if {
	guides := concat("/", [kgent, "guides"])
	inside := concat("/", [guides, "memory.md"])
	granted_but_not_requested := concat("/", [kgent, "index.md"])
	d := wikigate.decision with input as get_page_call("kunora-coding-agent", scope([], [guides], ""), [granted_but_not_requested, inside])
	d.allow == true
	d.pages == [inside]
}

# A page is read under the project whose grant covers it: the maintainer
# agent reads kunora-kgent's extras path, but only as kunora-kgent.
test_batch_page_readable_through_its_own_project if {
	extras := concat("/", [kgent_extras, "index.md"])
	gw := concat("/", [gateway, "routes.md"])
	d := wikigate.decision with input as get_page_call("docs-maintainer-agent", null, [extras, gw])
	d.pages == [extras, gw]
	d.project_paths["kunora-kgent"] == [kgent, kgent_extras]
}

test_batch_rest_of_scope_still_checked if {
	requested := scope(["kunora-gateway"], [], "")
	d := wikigate.decision with input as get_page_call("kunora-coding-agent", requested, [concat("/", [kgent, "index.md"])])
	d.code == "forbidden_scope"
	contains(d.reason, "project \"kunora-gateway\" is not in your grant")
}

test_calls_without_pages_list_none if {
	d := wikigate.decision with input as agent_call("kunora-coding-agent", "search", null)
	d.allow == true
	d.pages == []
}
