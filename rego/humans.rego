package wikigate

# Human defaults (docs/docs-sites.md, Who the reader is): a question that
# names neither projects nor paths is scoped to the section of the page it was
# asked on, or, without a page in a published project, to
# data.humans.default_scope.

human_default_applies if {
	is_human
	req_projects == []
	req_paths == []
}

page_path := input.page.path if {
	is_string(input.page.path)
	input.page.path != ""
}

# page_version is the docs version of the page asked on: the gateway reads
# it from a versioned page URL (/v1.0/system/...); undefined on an
# unversioned page, which is the default version's. A human question that
# names no version is asked about the page's version (scope.rego), whether
# or not it names projects or paths: a reader on the v1.0 page means v1.0.
page_version := input.page.version if {
	is_string(input.page.version)
	input.page.version != ""
}

# page_project is the public project whose root covers the page; the most
# specific root wins, ties by project id.
page_projects contains p if {
	some p in data.humans.public.projects
	path_within(page_path, p.root)
}

page_project := p if {
	longest := max({count(q.root) | some q in page_projects})
	id := min({q.id | some q in page_projects; count(q.root) == longest})
	some p in page_projects
	p.id == id
}

# page_section is the page's directory, kept inside its project's root.
page_section := d if {
	d := parent_dir(page_path)
	path_within(d, page_project.root)
} else := page_project.root

human_default := {
	"projects": [page_project.id],
	"paths": [page_section],
	"version": object.get(input.page, "version", "main"),
} if {
	human_default_applies
	page_project
} else := {
	"projects": data.humans.default_scope.projects,
	"paths": default_scope_paths,
	"version": object.get(data.humans.default_scope, "version", "main"),
} if {
	human_default_applies
}

# default_scope_paths are data.humans.default_scope.paths when the security
# team set them, else the public roots of the default projects.
default_scope_paths := paths if {
	paths := listed(data.humans.default_scope, "paths")
} else := sort({caller_grants[p].root | some p in data.humans.default_scope.projects})
