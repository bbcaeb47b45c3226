// Package samplewiki is the small wiki the development backends serve: a
// Docusaurus tree (site/docs, site/versioned_docs/version-v1.0) with its
// mapping file (wiki-map.yaml), read by the same code as `wikigate ingest`,
// and the dataset catalog that maps each project, version and status to a
// RAGFlow dataset id. The same corpus feeds the development Meilisearch (one
// index of pages) and the development RAGFlow (chunks per dataset), so a
// citation and a page hit agree, and `wikigate ingest` of the tree into the
// development backends finds every page already there, hash for hash.
// Started empty (`corpus empty`), they hold nothing until `wikigate ingest`
// loads site/ into them; the development RAGFlow then only takes the
// catalog's dataset ids from here, so rego/data.json names what it creates.
package samplewiki

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/wikigate/wikigate/ingest"
)

// The tree is embedded so the development backends and the tests start with
// it from any directory; the files under site/ are the ones to edit and to
// load with `wikigate ingest --src samplewiki/site --map samplewiki/wiki-map.yaml`.
//
//go:embed datasets.json wiki-map.yaml site
var embedded embed.FS

// Page is one wiki page with the metadata every backend document carries
// (docs/backends.md, "Write side": path, url, title, project, version,
// status).
type Page struct {
	ID           string    `json:"id"`
	Path         string    `json:"path"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Project      string    `json:"project"`
	Version      string    `json:"version"`
	Status       string    `json:"status"`
	PathPrefixes []string  `json:"pathPrefixes"`
	Headings     []string  `json:"headings"`
	Content      string    `json:"content"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// ContentHash is ingest's hash of the page (empty for pages read from the
	// test layout): the backends keep it so a re-run of ingest sees no change.
	ContentHash string `json:"contentHash,omitempty"`
}

// Dataset is one RAGFlow dataset of the catalog.
type Dataset struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Project string `json:"project"`
	Version string `json:"version"`
	Status  string `json:"status"`
}

// Corpus is the loaded wiki.
type Corpus struct {
	Pages    []Page
	Datasets []Dataset
}

// Load reads the tree embedded in the binary through ingest's reader.
func Load() (*Corpus, error) {
	c := &Corpus{}
	if err := c.readCatalog(embedded); err != nil {
		return nil, err
	}
	raw, err := fs.ReadFile(embedded, "wiki-map.yaml")
	if err != nil {
		return nil, err
	}
	m, err := ingest.ParseMapping(raw, "wiki-map.yaml")
	if err != nil {
		return nil, err
	}
	site, err := fs.Sub(embedded, "site")
	if err != nil {
		return nil, err
	}
	pages, fails, err := ingest.ReadFS(site, m)
	if err != nil {
		return nil, err
	}
	if len(fails) > 0 {
		return nil, fmt.Errorf("sample wiki page %s: %s", fails[0].Path, fails[0].Err)
	}
	for _, p := range pages {
		c.Pages = append(c.Pages, fromIngest(p))
	}
	return c, c.check()
}

func fromIngest(p ingest.Page) Page {
	return Page{ID: p.ID, Path: p.Path, URL: p.URL, Title: p.Title, Project: p.Project, Version: p.Version,
		Status: p.Status, PathPrefixes: p.PathPrefixes, Headings: p.Headings, Content: p.Content,
		UpdatedAt: p.UpdatedAt, ContentHash: p.Hash}
}

func (c *Corpus) readCatalog(fsys fs.FS) error {
	raw, err := fs.ReadFile(fsys, "datasets.json")
	if err != nil {
		return fmt.Errorf("reading dataset catalog: %w", err)
	}
	if err := json.Unmarshal(raw, &c.Datasets); err != nil {
		return fmt.Errorf("parsing dataset catalog: %w", err)
	}
	return nil
}

// LoadFS reads a corpus laid out as datasets.json plus
// pages/<version>/<repository path>.md: the compact layout tests use to
// build small corpora (the sample wiki itself is a Docusaurus tree, Load).
func LoadFS(fsys fs.FS) (*Corpus, error) {
	c := &Corpus{}
	if err := c.readCatalog(fsys); err != nil {
		return nil, err
	}
	err := fs.WalkDir(fsys, "pages", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		page, err := readPage(fsys, p)
		if err != nil {
			return fmt.Errorf("page %s: %w", p, err)
		}
		c.Pages = append(c.Pages, page)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(c.Pages, func(i, j int) bool { return c.Pages[i].ID < c.Pages[j].ID })
	return c, c.check()
}

// DatasetFor returns the dataset holding p, if the catalog has one.
func (c *Corpus) DatasetFor(p Page) (Dataset, bool) {
	for _, d := range c.Datasets {
		if d.Project == p.Project && d.Version == p.Version && d.Status == p.Status {
			return d, true
		}
	}
	return Dataset{}, false
}

// check makes sure every page has a dataset, so no page is silently missing
// from the development RAGFlow.
func (c *Corpus) check() error {
	for _, p := range c.Pages {
		if _, ok := c.DatasetFor(p); !ok {
			return fmt.Errorf("page %s (%s/%s/%s) has no dataset in datasets.json", p.Path, p.Project, p.Version, p.Status)
		}
	}
	return nil
}

func readPage(fsys fs.FS, file string) (Page, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Page{}, err
	}
	meta, body, err := splitFrontMatter(string(raw))
	if err != nil {
		return Page{}, err
	}
	rel := strings.TrimPrefix(file, "pages/")
	version, repoPath, _ := strings.Cut(rel, "/")
	p := Page{
		Path:     repoPath,
		Version:  version,
		Title:    meta["title"],
		Project:  meta["project"],
		Status:   meta["status"],
		Content:  body,
		Headings: headings(body),
	}
	if p.Title == "" || p.Project == "" || (p.Status != "approved" && p.Status != "working") {
		return Page{}, fmt.Errorf("front matter needs title, project and status approved|working")
	}
	if p.UpdatedAt, err = time.Parse("2006-01-02", meta["updated"]); err != nil {
		return Page{}, fmt.Errorf("front matter updated: %w", err)
	}
	p.URL = pageURL(version, repoPath)
	p.PathPrefixes = pathPrefixes(repoPath)
	p.ID = pageID(version, repoPath)
	return p, nil
}

// splitFrontMatter parses the "---" delimited key: value header.
func splitFrontMatter(s string) (map[string]string, string, error) {
	if !strings.HasPrefix(s, "---\n") {
		return nil, "", fmt.Errorf("missing front matter")
	}
	head, body, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		return nil, "", fmt.Errorf("unterminated front matter")
	}
	meta := map[string]string{}
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			meta[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return meta, strings.TrimLeft(body, "\n"), nil
}

func headings(body string) []string {
	var hs []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "#") {
			hs = append(hs, strings.TrimSpace(strings.TrimLeft(line, "#")))
		}
	}
	return hs
}

// pageURL maps publish/system/x/index.md in main to /system/x/ and other
// versions under /<version>/, as a docs site would publish them.
func pageURL(version, repoPath string) string {
	p := strings.TrimPrefix(repoPath, "publish/")
	p = strings.TrimSuffix(p, ".md")
	if path.Base(p) == "index" {
		p = strings.TrimSuffix(p, "index")
	}
	if version != "main" {
		p = version + "/" + p
	}
	return "/" + p
}

// pathPrefixes lists every ancestor of p and p itself, so a scope filter can
// use IN on whole segments (docs/backends.md, "Meilisearch traps and their
// defences").
func pathPrefixes(p string) []string {
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i := range segs {
		out = append(out, strings.Join(segs[:i+1], "/"))
	}
	return out
}

// pageID is a Meilisearch-safe document id ([A-Za-z0-9_-]) stable across loads.
func pageID(version, repoPath string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + repoPath))
	return hex.EncodeToString(sum[:12])
}
