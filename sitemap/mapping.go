// Package sitemap is the site mapping file both `wikigate ingest` and the
// gate read (docs/ingest.md, "Loading your wiki" and "One site mapping"): what the
// docs tree's folders mean (projects, statuses, the path prefix the policy
// grants) and how pages are published as URLs. Ingest builds a page's path
// and URL with it; the gate maps the URL a question was asked on back to
// that page's path and version with the same rules, so the two can never
// disagree about a page.
package sitemap

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	// go.yaml.in/yaml/v3 is the maintained continuation of gopkg.in/yaml.v3,
	// already in go.sum through Caddy's dependencies; since JSON is YAML, one
	// decoder reads both mapping file formats.
	"go.yaml.in/yaml/v3"
)

// Mapping is the mapping file. Paths are relative to a version root (docs/
// or versioned_docs/version-X/) and match whole segments; the longest
// match wins.
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
	// owns; default none.
	DatasetPrefix string `yaml:"datasetPrefix"`
	// Languages the pages are written in ("en", "zh"); ingest checks them
	// against the stop word lists it has (default ["en"]).
	Languages []string `yaml:"languages"`

	// dir is the folder of the file the mapping was read from: URL.Table
	// is relative to it.
	dir string
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

// ValidStatuses are the statuses the gate's policy and catalog know.
var ValidStatuses = map[string]bool{"approved": true, "working": true}

// Load reads a YAML or JSON mapping file and checks it.
func Load(file string) (*Mapping, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := Parse(raw, file)
	if err != nil {
		return nil, err
	}
	m.dir = path.Dir(strings.ReplaceAll(file, "\\", "/"))
	return m, nil
}

// Parse reads a mapping from YAML or JSON bytes; file labels errors. A
// mapping parsed from bytes has no folder: a relative URL.Table is read
// from the working directory.
func Parse(raw []byte, file string) (*Mapping, error) {
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
	m.PathPrefix = strings.Trim(m.PathPrefix, "/")
	if len(m.Languages) == 0 {
		m.Languages = []string{"en"}
	}
	if !ValidStatuses[m.DefaultStatus] {
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
		if !ValidStatuses[s.Status] {
			return fmt.Errorf("statuses[%d]: status %q: want approved or working", i, s.Status)
		}
		m.Statuses[i].Path = cleanRel(s.Path)
	}
	return m.URL.normalize(m.CurrentVersion)
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

// ProjectRoot is where a project's pages are, as the policy's
// humans.public.projects root names it: the path prefix and the project's
// first rule. A project mapped by front matter only has none ("").
func (m *Mapping) ProjectRoot(id string) string {
	for _, p := range m.Projects {
		if p.ID == id {
			return m.PagePath(p.Path)
		}
	}
	return ""
}

// PagePath is the repository path of rel (relative to its version root):
// the path the policy's grants and the backends' records use.
func (m *Mapping) PagePath(rel string) string {
	return strings.Trim(m.PathPrefix+"/"+rel, "/")
}

// Project is the longest project rule covering rel ("" when none does).
func (m *Mapping) Project(rel string) string {
	best, id := -1, ""
	for _, p := range m.Projects {
		if under(rel, p.Path) && len(p.Path) > best {
			best, id = len(p.Path), p.ID
		}
	}
	return id
}

// Status is the longest status rule covering rel, else the default.
func (m *Mapping) Status(rel string) string {
	best, st := -1, m.DefaultStatus
	for _, s := range m.Statuses {
		if under(rel, s.Path) && len(s.Path) > best {
			best, st = len(s.Path), s.Status
		}
	}
	return st
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
