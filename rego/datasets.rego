package wikigate

# Datasets (protocol §6.2 step 6, §6.3): approved datasets of every effective
# project at the effective version, plus working ones when working docs were
# requested and granted. Every project needs an approved dataset: an empty
# list must never reach RAGFlow, which reads it as "everything".

allowed_statuses contains "approved"

allowed_statuses contains "working" if req_working_docs

dataset_set contains {"id": d.id, "project": d.project, "version": d.version, "status": d.status} if {
	some d in data.catalog.datasets
	d.project in effective_projects
	d.version == effective_version
	d.status in allowed_statuses
}

datasets := [d | some d in dataset_set]

has_approved_dataset(project) if {
	some d in data.catalog.datasets
	d.project == project
	d.version == effective_version
	d.status == "approved"
}

dataset_problems contains sprintf("no approved dataset for project %q at version %q", [p, effective_version]) if {
	some p in effective_projects
	not has_approved_dataset(p)
}
