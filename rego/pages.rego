package wikigate

# get_page batches (protocol: each path of a batch gets its own result, as
# seed get_document_info does). A page is readable when it lies within one of
# the paths project_paths pairs with an effective project, so a page is only
# ever read under the project whose grant covers it. The decision lists the
# readable pages; the gateway fetches only those and reports every other
# requested page as forbidden_scope on its own. A batch with no readable page
# is denied as a whole (scope_checks.rego), so it reaches no backend.
readable_pages := [page |
	some page in input.pages
	page_readable(page)
]

page_readable(page) if {
	some paths in project_paths
	within_any(page, paths)
}
