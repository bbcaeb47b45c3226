// Package projects proposes the policy-data change a docs tree's projects
// need (docs/ingest.md, Adding a project): their catalog datasets, their public
// roots and versions, and a default scope when the data has none. It
// writes a proposal for the security team to review and apply, never the
// policy data itself: who may read what stays their decision.
package projects

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wikigate/wikigate/sitemap"
)

// Page is what a proposal needs of one page ingest read.
type Page struct {
	Project, Version string
}

// Catalog is the dataset catalog ingest writes (`--catalog FILE`):
// project → version → status → RAGFlow dataset ids.
type Catalog struct {
	Index    string                                    `json:"index,omitempty"`
	Datasets map[string]map[string]map[string][]string `json:"datasets"`
}

// Proposal is a JSON merge patch (RFC 7386) on the policy data, holding
// only what changes, and the changes said in words for the report.
type Proposal struct {
	Patch   map[string]any
	Changes []string
}

// policyData is the part of rego/data.json a proposal reads.
type policyData struct {
	Humans struct {
		Public struct {
			Projects []publicProject `json:"projects"`
			Paths    []string        `json:"paths"`
			Versions []string        `json:"versions"`
		} `json:"public"`
		DefaultScope struct {
			Projects []string `json:"projects"`
		} `json:"default_scope"`
	} `json:"humans"`
	Catalog Catalog `json:"catalog"`
}

type publicProject struct {
	ID   string `json:"id"`
	Root string `json:"root"`
}

// Propose compares the policy data with the tree's projects: every mapped
// project with pages gets the catalog's datasets (when a catalog is
// given), a public root (the mapping's path for it) and its versions among
// the public ones; an empty default scope gets the tree's projects.
// Existing entries are kept as they are: the proposal only adds.
func Propose(data []byte, m *sitemap.Mapping, pages []Page, cat *Catalog) (*Proposal, error) {
	var cur policyData
	if err := json.Unmarshal(data, &cur); err != nil {
		return nil, fmt.Errorf("policy data: %w", err)
	}
	p := &Proposal{Patch: map[string]any{}}
	projects, versions := treeProjects(pages)
	p.proposeCatalog(cur, cat, projects)
	p.proposePublic(cur, m, projects, versions)
	if len(cur.Humans.DefaultScope.Projects) == 0 && len(projects) > 0 {
		p.set([]string{"humans", "default_scope", "projects"}, projects)
		p.Changes = append(p.Changes, fmt.Sprintf("humans.default_scope.projects: empty, proposed %v (what a question asked on no page searches)", projects))
	}
	return p, nil
}

// treeProjects are the projects and versions that have pages, sorted.
func treeProjects(pages []Page) (projects, versions []string) {
	for _, pg := range pages {
		if !slices.Contains(projects, pg.Project) {
			projects = append(projects, pg.Project)
		}
		if !slices.Contains(versions, pg.Version) {
			versions = append(versions, pg.Version)
		}
	}
	sort.Strings(projects)
	sort.Strings(versions)
	return projects, versions
}

func (p *Proposal) proposeCatalog(cur policyData, cat *Catalog, projects []string) {
	if cat == nil {
		return
	}
	for _, id := range projects {
		want, ok := cat.Datasets[id]
		if !ok {
			continue
		}
		have, _ := json.Marshal(cur.Catalog.Datasets[id])
		next, _ := json.Marshal(want)
		if string(have) == string(next) {
			continue
		}
		p.set([]string{"catalog", "datasets", id}, want)
		verb := "added"
		if cur.Catalog.Datasets[id] != nil {
			verb = "replaced with the datasets ingest holds"
		}
		p.Changes = append(p.Changes, fmt.Sprintf("catalog.datasets.%s: %s (%s)", id, verb, describeDatasets(want)))
	}
	if cat.Index != "" && cat.Index != cur.Catalog.Index {
		p.set([]string{"catalog", "index"}, cat.Index)
		p.Changes = append(p.Changes, fmt.Sprintf("catalog.index: %q → %q", cur.Catalog.Index, cat.Index))
	}
}

func (p *Proposal) proposePublic(cur policyData, m *sitemap.Mapping, projects, versions []string) {
	public := slices.Clone(cur.Humans.Public.Projects)
	for _, id := range projects {
		if slices.ContainsFunc(public, func(pp publicProject) bool { return pp.ID == id }) {
			continue
		}
		root := m.ProjectRoot(id)
		if root == "" {
			p.Changes = append(p.Changes, fmt.Sprintf("humans.public.projects: %s has no projects rule in the mapping, so no root to propose: add one by hand", id))
			continue
		}
		public = append(public, publicProject{ID: id, Root: root})
		p.Changes = append(p.Changes, fmt.Sprintf("humans.public.projects: add %s (root %s): people may ask about its approved pages", id, root))
	}
	if len(public) != len(cur.Humans.Public.Projects) {
		p.set([]string{"humans", "public", "projects"}, public)
	}
	paths := slices.Clone(cur.Humans.Public.Paths)
	for _, pp := range public {
		if !slices.ContainsFunc(paths, func(base string) bool { return within(pp.Root, base) }) {
			paths = append(paths, pp.Root)
			p.Changes = append(p.Changes, fmt.Sprintf("humans.public.paths: add %s (the root of %s lies outside every public path)", pp.Root, pp.ID))
		}
	}
	if len(paths) != len(cur.Humans.Public.Paths) {
		p.set([]string{"humans", "public", "paths"}, paths)
	}
	vs := slices.Clone(cur.Humans.Public.Versions)
	for _, v := range versions {
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
			p.Changes = append(p.Changes, fmt.Sprintf("humans.public.versions: add %s", v))
		}
	}
	if len(vs) != len(cur.Humans.Public.Versions) {
		p.set([]string{"humans", "public", "versions"}, vs)
	}
}

// set puts value at path in the patch, creating the objects on the way.
func (p *Proposal) set(path []string, value any) {
	obj := p.Patch
	for _, k := range path[:len(path)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = value
}

func describeDatasets(byVersion map[string]map[string][]string) string {
	n := 0
	var vs []string
	for v, byStatus := range byVersion {
		vs = append(vs, v)
		for _, ids := range byStatus {
			n += len(ids)
		}
	}
	sort.Strings(vs)
	return fmt.Sprintf("%d dataset(s), versions %v", n, vs)
}

// within reports whether path is base or under it (whole segments).
func within(path, base string) bool {
	return path == base || strings.HasPrefix(path, base+"/")
}
