package wikigate

# Datasets (docs/protocol.md, Order of checks: datasets): the approved
# datasets of every effective project at the effective version, plus the
# working ones when working docs were requested and granted.
# data.catalog.datasets is indexed project → version → status → ids, so
# finding them is three lookups per project, never a scan of the catalog.
# Every project needs an approved dataset: an empty list must never reach
# RAGFlow, which reads it as "everything".

allowed_statuses := ["approved", "working"] if {
	req_working_docs
} else := ["approved"]

datasets := [{"id": id, "project": p, "version": effective_version, "status": status} |
	some p in effective_projects
	some status in allowed_statuses
	some id in data.catalog.datasets[p][effective_version][status]
]

has_approved_dataset(project) if count(data.catalog.datasets[project][effective_version].approved) > 0

dataset_problems contains sprintf("no approved dataset for project %q at version %q", [p, effective_version]) if {
	some p in effective_projects
	not has_approved_dataset(p)
}
