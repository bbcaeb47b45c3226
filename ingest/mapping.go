// Package ingest loads a Docusaurus-style docs tree into the backends the
// gate reads (issue 11): it turns Markdown/MDX pages into page records with
// the metadata the gate filters on (DESIGN §6) and synchronises a
// Meilisearch index with them, idempotently and incrementally.
package ingest

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	// go.yaml.in/yaml/v3 is the maintained continuation of gopkg.in/yaml.v3,
	// already in go.sum through Caddy's dependencies; since JSON is YAML, one
	// decoder reads both mapping file formats and the pages' front matter.
	"go.yaml.in/yaml/v3"
)

// Mapping is the explicit mapping file: what the tree's folders mean to the
// gate. Paths are relative to a version root (docs/ or
// versioned_docs/version-X/) and match whole segments; the longest match wins.
type Mapping struct {
	// PathPrefix is prepended to every page path, so paths line up with the
	// grants in rego/data.json (e.g. "publish").
	PathPrefix string `yaml:"pathPrefix"`
	// CurrentVersion names the version of docs/ (default "main").
	CurrentVersion string `yaml:"currentVersion"`
	// DefaultStatus applies when no rule or front matter sets one (default "approved").
	DefaultStatus string `yaml:"defaultStatus"`
	// Projects assign a project to the pages under a path.
	Projects []ProjectRule `yaml:"projects"`
	// Statuses assign a status to the pages under a path.
	Statuses []StatusRule `yaml:"statuses"`
	// URL says how page URLs are built.
	URL URLRule `yaml:"url"`
	// DatasetPrefix starts the name of every RAGFlow dataset this tree
	// owns (see DatasetName); default none.
	DatasetPrefix string `yaml:"datasetPrefix"`
	// Languages the pages are written in ("en", "zh"): their stop words go
	// into the Meilisearch settings (default ["en"]).
	Languages []string `yaml:"languages"`
}

// ProjectRule maps the pages under Path to project ID.
type ProjectRule struct {
	ID   string `yaml:"id"`
	Path string `yaml:"path"`
}

// StatusRule maps the pages under Path to Status.
type StatusRule struct {
	Path   string `yaml:"path"`
	Status string `yaml:"status"`
}

// URLRule builds URLs as a Docusaurus site publishes them: Base + [version/]
// + path without extension, "index" naming its folder; a front matter slug
// replaces the path part.
type URLRule struct {
	// Base is the site's base URL path (default "/").
	Base string `yaml:"base"`
	// NoVersionSegment drops the /<version>/ segment of older versions.
	NoVersionSegment bool `yaml:"noVersionSegment"`
}

// validStatuses are the statuses the gate's policy and catalog know (DESIGN §6).
var validStatuses = map[string]bool{"approved": true, "working": true}

// LoadMapping reads a YAML or JSON mapping file and checks it.
func LoadMapping(file string) (*Mapping, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseMapping(raw, file)
}

// ParseMapping reads a mapping from YAML or JSON bytes; name labels errors.
func ParseMapping(raw []byte, file string) (*Mapping, error) {
	var m Mapping
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("mapping %s: %w", file, err)
	}
	if err := m.normalize(); err != nil {
		return nil, fmt.Errorf("mapping %s: %w", file, err)
	}
	return &m, nil
}

// normalize fills defaults and refuses rules the gate could not use.
func (m *Mapping) normalize() error {
	if m.CurrentVersion == "" {
		m.CurrentVersion = "main"
	}
	if m.DefaultStatus == "" {
		m.DefaultStatus = "approved"
	}
	if m.URL.Base == "" {
		m.URL.Base = "/"
	}
	m.PathPrefix = strings.Trim(m.PathPrefix, "/")
	if len(m.Languages) == 0 {
		m.Languages = []string{"en"}
	}
	for _, lang := range m.Languages {
		if stopWordLists[lang] == nil {
			return fmt.Errorf("languages: %q: want en or zh", lang)
		}
	}
	if !validStatuses[m.DefaultStatus] {
		return fmt.Errorf("defaultStatus %q: want approved or working", m.DefaultStatus)
	}
	if len(m.Projects) == 0 {
		return errors.New("no projects: every page needs one")
	}
	for i, p := range m.Projects {
		if p.ID == "" {
			return fmt.Errorf("projects[%d]: id is required", i)
		}
		m.Projects[i].Path = cleanRel(p.Path)
	}
	for i, s := range m.Statuses {
		if !validStatuses[s.Status] {
			return fmt.Errorf("statuses[%d]: status %q: want approved or working", i, s.Status)
		}
		m.Statuses[i].Path = cleanRel(s.Path)
	}
	return nil
}

// ProjectIDs lists the mapped projects: the ones a sync owns, so pages of
// other projects in a shared index are never deleted by this tree.
func (m *Mapping) ProjectIDs() []string {
	var ids []string
	seen := map[string]bool{}
	for _, p := range m.Projects {
		if !seen[p.ID] {
			seen[p.ID] = true
			ids = append(ids, p.ID)
		}
	}
	return ids
}

func cleanRel(p string) string {
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return ""
	}
	return path.Clean(p)
}

// under reports whether rel is dir or inside it (whole segments).
func under(rel, dir string) bool {
	return dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// project is the longest project rule covering rel.
func (m *Mapping) project(rel string) string {
	best, id := -1, ""
	for _, p := range m.Projects {
		if under(rel, p.Path) && len(p.Path) > best {
			best, id = len(p.Path), p.ID
		}
	}
	return id
}

// status is the longest status rule covering rel, else the default.
func (m *Mapping) status(rel string) string {
	best, st := -1, m.DefaultStatus
	for _, s := range m.Statuses {
		if under(rel, s.Path) && len(s.Path) > best {
			best, st = len(s.Path), s.Status
		}
	}
	return st
}
