// Package ingest loads a Docusaurus-style docs tree into the backends the gate
// reads (issue 11): it turns Markdown/MDX pages into page records with the
// metadata the gate filters on (docs/backends.md, "Write side" of each
// backend) and synchronises a Meilisearch index with them, idempotently and
// incrementally.
package ingest

import (
	"fmt"

	"github.com/wikigate/wikigate/sitemap"
)

// Mapping is the site mapping file (package sitemap): what the tree's
// folders mean to the gate and how pages are published as URLs. The gate
// reads the same file to map a page URL back to its page, so the rules
// live in sitemap, not here; Mapping has sitemap.Mapping's fields.
type Mapping sitemap.Mapping

// The mapping's rule types, as sitemap defines them.
type (
	ProjectRule = sitemap.ProjectRule
	StatusRule  = sitemap.StatusRule
	URLRule     = sitemap.URLRule
)

// validStatuses are the statuses the gate's policy and catalog know.
var validStatuses = sitemap.ValidStatuses

// LoadMapping reads a YAML or JSON mapping file and checks it.
func LoadMapping(file string) (*Mapping, error) {
	m, err := sitemap.Load(file)
	if err != nil {
		return nil, err
	}
	return checkLanguages((*Mapping)(m), file)
}

// ParseMapping reads a mapping from YAML or JSON bytes; name labels errors.
func ParseMapping(raw []byte, file string) (*Mapping, error) {
	m, err := sitemap.Parse(raw, file)
	if err != nil {
		return nil, err
	}
	return checkLanguages((*Mapping)(m), file)
}

// checkLanguages refuses a language ingest has no stop words for.
func checkLanguages(m *Mapping, file string) (*Mapping, error) {
	for _, lang := range m.Languages {
		if stopWordLists[lang] == nil {
			return nil, fmt.Errorf("mapping %s: languages: %q: want en or zh", file, lang)
		}
	}
	return m, nil
}

// Site is the mapping as package sitemap reads it.
func (m *Mapping) Site() *sitemap.Mapping { return (*sitemap.Mapping)(m) }

// ProjectIDs lists the mapped projects: the ones a sync owns, so pages of
// other projects in a shared index are never deleted by this tree.
func (m *Mapping) ProjectIDs() []string { return m.Site().ProjectIDs() }

// project is the longest project rule covering rel.
func (m *Mapping) project(rel string) string { return m.Site().Project(rel) }

// status is the longest status rule covering rel, else the default.
func (m *Mapping) status(rel string) string { return m.Site().Status(rel) }
