package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/wikigate/wikigate/doctext"
)

// Failure is one page that could not be read or written, by its source path.
type Failure struct {
	Path string `json:"path"`
	Err  string `json:"error"`
	// id is the page's document id when known: a page that failed to read
	// must not be deleted from the backends as if it had disappeared.
	id string
}

// ReadTree reads every page of the site at src. Pages that cannot be mapped
// are failures, not errors: one bad page must not stop a whole wiki's load.
// A page without a date in its front matter takes the time of the last git
// commit that touched its file when src is in a git work tree (gitTimes);
// never the file's modification time, which a clone, a copy or a touch
// changes without changing the page.
func ReadTree(src string, m *Mapping) ([]Page, []Failure, error) {
	pages, fails, _, err := ReadTreeAs(src, m, "")
	return pages, fails, err
}

// ReadTreeAs is ReadTree in a given layout ("" detects it), and returns
// the layout read.
func ReadTreeAs(src string, m *Mapping, layout Layout) ([]Page, []Failure, Layout, error) {
	fsys := os.DirFS(src)
	if layout == "" {
		layout = DetectLayout(fsys)
	}
	pages, fails, err := ReadFSAs(fsys, m, layout)
	if err != nil {
		return nil, nil, layout, err
	}
	addGitTimes(context.Background(), src, pages)
	return pages, fails, layout, nil
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
// embedded copy of a tree, in the sample wiki's case), layout detected.
func ReadFS(fsys fs.FS, m *Mapping) ([]Page, []Failure, error) {
	return ReadFSAs(fsys, m, DetectLayout(fsys))
}

// ReadFSAs is ReadFS in the given layout.
func ReadFSAs(fsys fs.FS, m *Mapping, layout Layout) ([]Page, []Failure, error) {
	rs, err := layout.roots(fsys, m)
	if err != nil {
		return nil, nil, err
	}
	var jobs []pageJob
	for _, r := range rs {
		files, err := r.files(fsys)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", r.dir, err)
		}
		rm := r.urlMapping(m)
		for _, f := range files {
			jobs = append(jobs, pageJob{root: r, file: f, m: rm})
		}
	}
	readPages(fsys, jobs, layout.generator())
	var pages []Page
	var fails []Failure
	for _, j := range jobs {
		if j.err != nil {
			fails = append(fails, Failure{Path: filepath.FromSlash(j.file), Err: j.err.Error(), id: j.page.ID})
			continue
		}
		pages = append(pages, j.page)
	}
	if len(pages)+len(fails) == 0 {
		// Loading nothing would delete every page of the mapped projects.
		return nil, nil, fmt.Errorf("no Markdown or MDX page found (read as a %s tree): is --src the site's root, and --layout right?", layout)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].ID < pages[j].ID })
	return pages, fails, nil
}

// pageJob is one page file to read and what reading it gave.
type pageJob struct {
	root versionRoot
	file string
	m    *Mapping
	page Page
	err  error
}

// readPages reads the jobs' pages on every core: parsing is most of a
// re-run's time (bench/INGEST.md), and pages are independent.
func readPages(fsys fs.FS, jobs []pageJob, gen doctext.Generator) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := &jobs[i]
				j.page, j.err = readPage(fsys, j.root, j.file, j.m, gen)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
}

// files lists the root's page files, relative to the source root.
func (r versionRoot) files(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := r.rel(p)
		if p != r.dir && (skipped(d.Name()) || (d.IsDir() && slices.Contains(r.skipDirs, rel))) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isPageFile(p) || (r.only != nil && !r.only[rel]) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// rel is file relative to the root's folder.
func (r versionRoot) rel(file string) string {
	if r.dir == "." {
		return file
	}
	return strings.TrimPrefix(file, r.dir+"/")
}

// skipped names are Docusaurus partials (_x.md), its _category_ files and
// hidden files: not pages.
func skipped(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

func readPage(fsys fs.FS, r versionRoot, file string, m *Mapping, gen doctext.Generator) (Page, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Page{}, err
	}
	rel := r.rel(file)
	p := Page{Version: r.version, Locale: r.locale, Source: file}
	p.Path = strings.TrimPrefix(m.PathPrefix+"/"+rel, "/")
	p.ID = pageKey(p.Version, p.Locale, p.Path)
	fm, body, err := splitFrontMatter(string(raw))
	if err != nil {
		return Page{ID: p.ID}, err
	}
	doc := doctext.Extract(body, doctext.Options{MDX: readsAsMDX(file, gen), Generator: gen})
	p.Content, p.Headings = doc.Content(), doc.Headings()
	p.Title = firstNonEmpty(fm.Title, r.titles[rel], doc.Title(), strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
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
	p.URL = m.pageURL(r.version, rel, r.slug(rel, fm.Slug))
	p.URL = r.localeURL(p.URL, m.URL.Base)
	p.PathPrefixes = pathPrefixes(p.Path)
	p.computeHash()
	return p, nil
}

// readsAsMDX: .mdx files are MDX, and so are .md files on the generators
// that compile them as MDX (Docusaurus 3's default markdown.format, Mintlify).
func readsAsMDX(file string, gen doctext.Generator) bool {
	return path.Ext(file) == ".mdx" || gen == doctext.Docusaurus || gen == doctext.Mintlify
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
