package ingest

import "sort"

// Statuses are the page statuses the gate's catalog keys datasets by.
var Statuses = []string{"approved", "working"}

// DatasetName is the documented naming rule of the RAGFlow datasets a tree
// owns: "<datasetPrefix><project> <version> <status>", one dataset per project
// × version × status (docs/backends.md, RAGFlow "Write side": a status is a
// dataset, so the policy grants working pages by naming their datasets).
// RAGFlow does not refuse a duplicate name (it appends "(1)"), so ingest finds
// datasets by this exact name before creating one.
func (m *Mapping) DatasetName(project, version, status string) string {
	return m.DatasetPrefix + project + " " + version + " " + status
}

// DatasetKey is one dataset of the catalog.
type DatasetKey struct{ Project, Version, Status string }

// wantedDatasets lists every project × version × status the tree owns:
// the mapped projects, each version the tree holds, both statuses, so the
// catalog is complete even where a version has no working page yet.
func (m *Mapping) wantedDatasets(pages []Page) []DatasetKey {
	versions := map[string]bool{m.CurrentVersion: true}
	for _, p := range pages {
		versions[p.Version] = true
	}
	projects := map[string]bool{}
	for _, id := range m.ProjectIDs() {
		projects[id] = true
	}
	for _, p := range pages {
		projects[p.Project] = true // a front matter may name an unmapped project
	}
	var out []DatasetKey
	for project := range projects {
		for version := range versions {
			for _, st := range Statuses {
				out = append(out, DatasetKey{project, version, st})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

func (k DatasetKey) less(o DatasetKey) bool {
	if k.Project != o.Project {
		return k.Project < o.Project
	}
	if k.Version != o.Version {
		return k.Version < o.Version
	}
	return k.Status < o.Status
}
