package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Failure is one page that could not be read or written, by its source path.
type Failure struct {
	Path string `json:"path"`
	Err  string `json:"error"`
	// id is the page's document id when known: a page that failed to read
	// must not be deleted from the backends as if it had disappeared.
	id string
}

// versionRoot is one version's folder of a Docusaurus site.
type versionRoot struct {
	version string
	dir     string // relative to the source root, slash-separated
}

// roots finds docs/ (the current version) and versioned_docs/version-X/.
func roots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	if st, err := fs.Stat(fsys, "docs"); err != nil || !st.IsDir() {
		return nil, errors.New("no docs/ folder: --src must be a Docusaurus site root")
	}
	out := []versionRoot{{version: m.CurrentVersion, dir: "docs"}}
	entries, err := fs.ReadDir(fsys, "versioned_docs")
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if v, ok := strings.CutPrefix(e.Name(), "version-"); ok && e.IsDir() && v != "" {
			out = append(out, versionRoot{version: v, dir: "versioned_docs/" + e.Name()})
		}
	}
	return out, nil
}

// ReadTree reads every page of the site at src. Pages that cannot be mapped
// are failures, not errors: one bad page must not stop a whole wiki's load.
// A page without a date in its front matter takes the time of the last git
// commit that touched its file when src is in a git work tree (gitTimes);
// never the file's modification time, which a clone, a copy or a touch
// changes without changing the page.
func ReadTree(src string, m *Mapping) ([]Page, []Failure, error) {
	pages, fails, err := ReadFS(os.DirFS(src), m)
	if err != nil {
		return nil, nil, err
	}
	addGitTimes(context.Background(), src, pages)
	return pages, fails, nil
}

// addGitTimes fills UpdatedAt from git for the pages whose front matter
// gave none. UpdatedAt is not part of the hash, so this changes no page's
// identity.
func addGitTimes(ctx context.Context, src string, pages []Page) {
	var files []string
	for _, p := range pages {
		if p.UpdatedAt.IsZero() {
			files = append(files, p.Source)
		}
	}
	times := gitTimes(ctx, src, files)
	for i := range pages {
		if t, ok := times[pages[i].Source]; ok && pages[i].UpdatedAt.IsZero() {
			pages[i].UpdatedAt = t
		}
	}
}

// ReadFS is ReadTree over a file system whose root is the site root (an
// embedded copy of a tree, in the sample wiki's case).
func ReadFS(fsys fs.FS, m *Mapping) ([]Page, []Failure, error) {
	rs, err := roots(fsys, m)
	if err != nil {
		return nil, nil, err
	}
	var pages []Page
	var fails []Failure
	for _, r := range rs {
		err := fs.WalkDir(fsys, r.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if skipped(d.Name()) && p != r.dir {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			ext := path.Ext(p)
			if d.IsDir() || (ext != ".md" && ext != ".mdx") {
				return nil
			}
			page, err := readPage(fsys, r, p, m)
			if err != nil {
				fails = append(fails, Failure{Path: filepath.FromSlash(p), Err: err.Error(), id: page.ID})
				return nil
			}
			pages = append(pages, page)
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", r.dir, err)
		}
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].ID < pages[j].ID })
	return pages, fails, nil
}

// skipped names are Docusaurus partials (_x.md), its _category_ files and
// hidden files: not pages.
func skipped(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

func readPage(fsys fs.FS, r versionRoot, file string, m *Mapping) (Page, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Page{}, err
	}
	rel := strings.TrimPrefix(file, r.dir+"/")
	p := Page{Version: r.version, Source: file}
	p.Path = strings.TrimPrefix(m.PathPrefix+"/"+rel, "/")
	p.ID = pageID(p.Version, p.Path)
	fm, body, err := splitFrontMatter(string(raw))
	if err != nil {
		return Page{ID: p.ID}, err
	}
	if path.Ext(file) == ".mdx" {
		body = mdxBody(body)
	}
	p.Content, p.Headings = body, headings(body)
	p.Title = firstNonEmpty(fm.Title, firstHeading(p.Headings), strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
	p.Project = firstNonEmpty(fm.Project, m.project(rel))
	if p.Project == "" {
		return Page{ID: p.ID}, errors.New("no project: add a projects rule covering it or a project front matter key")
	}
	p.Status = firstNonEmpty(fm.Status, m.status(rel))
	if !validStatuses[p.Status] {
		return Page{ID: p.ID}, fmt.Errorf("status %q: want approved or working", p.Status)
	}
	if p.UpdatedAt, err = fm.updatedAt(); err != nil {
		return Page{ID: p.ID}, err
	}
	p.URL = m.pageURL(r.version, rel, fm.Slug)
	p.PathPrefixes = pathPrefixes(p.Path)
	p.computeHash()
	return p, nil
}

func firstHeading(hs []string) string {
	if len(hs) == 0 {
		return ""
	}
	return hs[0]
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
