package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/doctext"
)

// Layout is how a docs tree is arranged: where its pages are, which of
// them belong to which version and locale, and which site generator's
// rules (heading anchors, admonitions) its Markdown follows.
type Layout string

// The layouts ingest reads (docs/ingest.md "Loading your wiki" has an example of each).
const (
	// Docusaurus: docs/ (the current version), versioned_docs/version-X/,
	// and i18n/<locale>/docusaurus-plugin-content-docs/{current,version-X}/
	// for the locales the mapping's url.locales lists.
	Docusaurus Layout = "docusaurus"
	// MkDocs: mkdocs.yml's docs_dir (default docs/); its nav gives titles.
	MkDocs Layout = "mkdocs"
	// Mintlify: docs.json (or the older mint.json) at the root; the pages
	// its navigation lists.
	Mintlify Layout = "mintlify"
	// Markdown: every .md and .mdx file under the root, one version.
	Markdown Layout = "markdown"
)

// Layouts lists the layouts by name, for --layout.
var Layouts = []Layout{Docusaurus, MkDocs, Mintlify, Markdown}

// ParseLayout reads a --layout value; "" (or "auto") is detection.
func ParseLayout(s string) (Layout, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	if l := Layout(s); slices.Contains(Layouts, l) {
		return l, nil
	}
	return "", fmt.Errorf("layout %q: want one of docusaurus, mkdocs, mintlify, markdown (or auto)", s)
}

// DetectLayout names the layout of the tree: mkdocs.yml is MkDocs,
// docs.json or mint.json Mintlify, a docusaurus.config file or a docs/
// folder Docusaurus, anything else a plain Markdown tree.
func DetectLayout(fsys fs.FS) Layout {
	switch {
	case exists(fsys, "mkdocs.yml") || exists(fsys, "mkdocs.yaml"):
		return MkDocs
	case exists(fsys, "docs.json") || exists(fsys, "mint.json"):
		return Mintlify
	}
	for _, f := range []string{"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs", "docusaurus.config.cjs"} {
		if exists(fsys, f) {
			return Docusaurus
		}
	}
	if st, err := fs.Stat(fsys, "docs"); err == nil && st.IsDir() {
		return Docusaurus
	}
	return Markdown
}

// generator is the site generator whose Markdown rules the layout's pages follow.
func (l Layout) generator() doctext.Generator {
	switch l {
	case MkDocs:
		return doctext.MkDocs
	case Mintlify:
		return doctext.Mintlify
	case Docusaurus:
		return doctext.Docusaurus
	}
	return doctext.Markdown
}

// versionRoot is one folder of pages: a version (and locale) of the site.
type versionRoot struct {
	version string
	locale  string // "" for the site's default language
	dir     string // relative to the source root, slash-separated ("." for the root)
	// only, when set, lists the pages (relative to dir) the root holds;
	// otherwise every page file under dir.
	only map[string]bool
	// titles are titles the site's configuration gives pages (MkDocs nav).
	titles map[string]string
	// skipDirs are folders under dir that hold no pages (relative to dir).
	skipDirs []string
	// htmlFiles: the site's configuration publishes the pages as .html
	// files (MkDocs use_directory_urls: false), whatever the mapping says.
	htmlFiles bool
	// localeInBase: the locale segment follows url.base, as a Mintlify
	// page's folder does (/docs/fr/quickstart); Docusaurus puts it first
	// (/fr/docs/intro).
	localeInBase bool
	// readmeIsPage: README.md is a page like any other, published at its
	// own URL (Mintlify: /migration/readme is the guide to migrating from
	// ReadMe); Docusaurus and MkDocs publish it at its folder's URL.
	readmeIsPage bool
}

// slug is the slug a page's URL is built with: its front matter's, else,
// where a README is a page like any other, its own name.
func (r versionRoot) slug(rel, frontMatter string) string {
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	if frontMatter == "" && r.readmeIsPage && strings.EqualFold(stem, "readme") {
		return stem
	}
	return frontMatter
}

// localeURL is the published URL of a page of the root whose URL in the
// site's default language is u.
func (r versionRoot) localeURL(u, base string) string {
	switch {
	case r.locale == "":
		return u
	case r.localeInBase && strings.HasPrefix(u, base):
		return base + r.locale + "/" + strings.TrimPrefix(u, base)
	}
	return "/" + r.locale + u
}

// urlMapping is the mapping whose URL rule builds the root's page URLs:
// m, with url.htmlFiles when the site's configuration publishes .html
// files, so the URLs ingest stores are the site's.
func (r versionRoot) urlMapping(m *Mapping) *Mapping {
	if !r.htmlFiles || m.URL.HTMLFiles {
		return m
	}
	c := *m
	c.URL.HTMLFiles, c.URL.TrailingSlash = true, false
	return &c
}

// roots finds the folders of pages of the layout.
func (l Layout) roots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	switch l {
	case MkDocs:
		return mkdocsRoots(fsys, m)
	case Mintlify:
		return mintlifyRoots(fsys, m)
	case Markdown:
		return []versionRoot{{version: m.CurrentVersion, dir: ".", skipDirs: []string{"node_modules"}}}, nil
	}
	return docusaurusRoots(fsys, m)
}

// docusaurusRoots finds docs/, versioned_docs/version-X/ and, for each
// locale of the mapping's url.locales, its translated versions.
func docusaurusRoots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	if st, err := fs.Stat(fsys, "docs"); err != nil || !st.IsDir() {
		return nil, errors.New("no docs/ folder: --src must be a Docusaurus site root (or name another --layout)")
	}
	out := []versionRoot{{version: m.CurrentVersion, dir: "docs"}}
	older, err := versionDirs(fsys, "versioned_docs")
	if err != nil {
		return nil, err
	}
	for _, v := range older {
		out = append(out, versionRoot{version: v, dir: "versioned_docs/version-" + v})
	}
	for _, loc := range m.URL.Locales {
		base := "i18n/" + loc + "/docusaurus-plugin-content-docs"
		if exists(fsys, base+"/current") {
			out = append(out, versionRoot{version: m.CurrentVersion, locale: loc, dir: base + "/current"})
		}
		vs, err := versionDirs(fsys, base)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out = append(out, versionRoot{version: v, locale: loc, dir: base + "/version-" + v})
		}
	}
	return out, nil
}

// versionDirs lists the X of dir/version-X/ folders (none when dir is missing).
func versionDirs(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if v, ok := strings.CutPrefix(e.Name(), "version-"); ok && e.IsDir() && v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}

// readConfig reads a layout's configuration file: the first of names
// that exists (a generator accepts several spellings), else the last, so
// the error names a file the operator would recognise.
func readConfig(fsys fs.FS, names ...string) (name string, raw []byte, err error) {
	name = names[len(names)-1]
	for _, n := range names {
		if exists(fsys, n) {
			name = n
			break
		}
	}
	raw, err = fs.ReadFile(fsys, name)
	return name, raw, err
}

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// isPageFile: Markdown and MDX files are pages.
func isPageFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".md" || ext == ".mdx"
}
