package ingest

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func mustMapping(t *testing.T, yaml string) *Mapping {
	t.Helper()
	m, err := ParseMapping([]byte(yaml), "test")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLayoutsAreDetected(t *testing.T) {
	cases := map[Layout]fstest.MapFS{
		MkDocs:     {"mkdocs.yml": file("site_name: x\n"), "docs/a.md": file("# A\n")},
		Mintlify:   {"docs.json": file("{}"), "a.mdx": file("# A\n")},
		Docusaurus: {"docusaurus.config.ts": file(""), "docs/a.md": file("# A\n")},
		Markdown:   {"guide/a.md": file("# A\n")},
	}
	for want, fsys := range cases {
		if got := DetectLayout(fsys); got != want {
			t.Errorf("%v detected as %s, want %s", fsys, got, want)
		}
	}
	if got := DetectLayout(fstest.MapFS{"mint.json": file("{}")}); got != Mintlify {
		t.Errorf("mint.json: %s", got)
	}
	if _, err := ParseLayout("hugo"); err == nil || !strings.Contains(err.Error(), "want one of docusaurus, mkdocs, mintlify, markdown") {
		t.Errorf("--layout hugo: %v", err)
	}
}

func TestDocusaurusReadsVersionsAndTheMappedLocales(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/guide/setup.md":                                               file("# Setup\n\nInstall it.\n"),
		"versioned_docs/version-1.0/guide/setup.md":                         file("# Setup\n\nOld install.\n"),
		"i18n/fr/docusaurus-plugin-content-docs/current/guide/setup.md":     file("# Installation\n\nInstallez-le.\n"),
		"i18n/de/docusaurus-plugin-content-docs/current/guide/setup.md":     file("# Einrichtung\n"),
		"i18n/fr/docusaurus-plugin-content-docs/version-1.0/guide/setup.md": file("# Installation 1.0\n"),
	}
	m := mustMapping(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {base: /docs/, locales: [fr]}\n")
	pages, fails, err := ReadFSAs(fsys, m, Docusaurus)
	if err != nil || len(fails) != 0 {
		t.Fatal(err, fails)
	}
	var got []string
	ids := map[string]bool{}
	for _, p := range pages {
		got = append(got, p.label()+" "+p.URL+" "+p.Title)
		ids[p.ID] = true
		if p.Path != "publish/guide/setup.md" {
			t.Errorf("%s: a translation keeps the path of the page it translates", p.Path)
		}
	}
	slices.Sort(got)
	want := []string{
		"publish/guide/setup.md (1.0) /docs/1.0/guide/setup Setup",
		"publish/guide/setup.md (1.0, fr) /fr/docs/1.0/guide/setup Installation 1.0",
		"publish/guide/setup.md (main) /docs/guide/setup Setup",
		"publish/guide/setup.md (main, fr) /fr/docs/guide/setup Installation",
	}
	if !slices.Equal(got, want) || len(ids) != 4 {
		t.Fatalf("pages\n%q\nwant (de is not in url.locales)\n%q, %d ids", got, want, len(ids))
	}
}

func TestMkDocsReadsDocsDirAndNavTitles(t *testing.T) {
	fsys := fstest.MapFS{
		"mkdocs.yml": file("site_name: x\ndocs_dir: site_docs\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n" +
			"nav:\n  - Home: index.md\n  - Guides:\n    - Getting started: guide/start.md\n"),
		"site_docs/index.md":       file("Welcome.\n"),
		"site_docs/guide/start.md": file("# Start here\n\n!!! warning \"Careful\"\n    Indented body, not code.\n"),
		"docs/ignored.md":          file("# Not the docs_dir\n"),
	}
	m := mustMapping(t, "projects: [{id: p, path: ''}]\nurl: {trailingSlash: true}\n")
	pages, _, err := ReadFSAs(fsys, m, DetectLayout(fsys))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 {
		t.Fatalf("%d pages, want the docs_dir's 2: %+v", len(pages), pages)
	}
	for _, p := range pages {
		switch p.Path {
		case "index.md":
			if p.Title != "Home" || p.URL != "/" {
				t.Errorf("index: %q %q", p.Title, p.URL)
			}
		case "guide/start.md":
			if p.Title != "Getting started" || p.URL != "/guide/start/" ||
				p.Content != "# Start here\n\nCareful\n\nIndented body, not code.\n" {
				t.Errorf("start: %q %q %q", p.Title, p.URL, p.Content)
			}
		default:
			t.Errorf("unexpected page %s", p.Path)
		}
	}
}

func TestMintlifyReadsTheNavigationsPages(t *testing.T) {
	fsys := fstest.MapFS{
		"docs.json": file(`{"name": "x", "navigation": {"tabs": [{"tab": "Guides", "groups": [
			{"group": "Start", "pages": ["quickstart", {"group": "Nested", "root": "api/index", "pages": ["api/auth"]}]}]}]}}`),
		"api/index.mdx":       file("---\ntitle: API\n---\nOverview.\n"),
		"quickstart.mdx":      file("---\ntitle: Quickstart\n---\n<Card title=\"Install\" href=\"/x\">\n  Run the installer.\n</Card>\n\n## Next steps\n"),
		"api/auth.md":         file("---\ntitle: Auth\n---\nUse a key.\n"),
		"snippets/shared.mdx": file("Reusable.\n"),
		"README.md":           file("# Repo readme, not a page\n"),
	}
	m := mustMapping(t, "projects: [{id: p, path: ''}]\n")
	pages, _, err := ReadFSAs(fsys, m, DetectLayout(fsys))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pages {
		got = append(got, p.Path+" "+p.URL+" "+p.Title)
		if p.Path == "quickstart.mdx" && p.Content != "Install\n\nRun the installer.\n\n## Next steps\n" {
			t.Errorf("quickstart content %q", p.Content)
		}
	}
	slices.Sort(got)
	if want := []string{"api/auth.md /api/auth Auth", "api/index.mdx /api/ API", "quickstart.mdx /quickstart Quickstart"}; !slices.Equal(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
}

func TestMarkdownReadsEveryPageButDependencies(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                file("# Handbook\n\nStart here.\n"),
		"teams/ops.md":             file("# Ops\n"),
		"node_modules/x/README.md": file("# a dependency\n"),
		".github/pull_request.md":  file("# hidden\n"),
		"teams/_partial.md":        file("partial\n"),
		"teams/notes.txt":          file("not a page\n"),
	}
	m := mustMapping(t, "projects: [{id: p, path: ''}]\n")
	pages, _, err := ReadFSAs(fsys, m, Markdown)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pages {
		got = append(got, p.Path+" "+p.URL)
	}
	slices.Sort(got)
	if want := []string{"README.md /", "teams/ops.md /teams/ops"}; !slices.Equal(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
}

// mkdocs.yml's use_directory_urls: false publishes every page as a file:
// the URLs ingest stores are page.html and a folder's index.html, and the
// warning asks for the mapping key the gate's rules read them with.
func TestMkDocsWithoutDirectoryURLsStoresHTMLFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"mkdocs.yml":            file("site_name: x\nuse_directory_urls: false\n"),
		"docs/index.md":         file("# Home\n"),
		"docs/guide/setup.md":   file("# Setup\n"),
		"docs/guide/README.md":  file("# Guide\n"),
		"docs/api/reference.md": file("# Reference\n"),
	}
	m := mustMapping(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {trailingSlash: true}\n")
	pages, _, err := ReadFSAs(fsys, m, DetectLayout(fsys))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pages {
		got = append(got, p.Path+" "+p.URL)
	}
	slices.Sort(got)
	want := []string{
		"publish/api/reference.md /api/reference.html",
		"publish/guide/README.md /guide/index.html",
		"publish/guide/setup.md /guide/setup.html",
		"publish/index.md /index.html",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
	if w := SiteWarnings(fsys, MkDocs, m); len(w) != 1 || !strings.Contains(w[0], "url.htmlFiles: true") {
		t.Errorf("warnings %q, want one naming url.htmlFiles", w)
	}
	agreed := mustMapping(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {htmlFiles: true}\n")
	if w := SiteWarnings(fsys, MkDocs, agreed); len(w) != 0 {
		t.Errorf("a mapping that agrees: warnings %q", w)
	}
	fsys["mkdocs.yml"] = file("site_name: x\n")
	pages, _, _ = ReadFSAs(fsys, m, MkDocs)
	for _, p := range pages {
		if p.Path == "publish/api/reference.md" && p.URL != "/api/reference/" {
			t.Errorf("use_directory_urls by default: %s, want /api/reference/", p.URL)
		}
	}
}

// Mintlify's navigation.languages are locales: a language's pages under
// its folder (es/quickstart) keep the path of the page they translate and
// are published under /docs/es/ (Mintlify's folder follows the base,
// where Docusaurus puts the locale first: /es/docs/). A language's
// navigation may be in its own file ("$ref", as Mintlify's own docs do).
// A readme.mdx is a page of its own there, not its folder's index.
func TestMintlifyLanguagesAreLocales(t *testing.T) {
	fsys := fstest.MapFS{
		"docs.json": file(`{"name": "x", "navigation": {"languages": [
			{"language": "en", "groups": [{"group": "Start", "pages": ["index", "guide/setup", "migrate/index", "migrate/readme"]}]},
			{"$ref": "./nav/es.json"}]}}`),
		"nav/es.json":        file(`{"language": "es", "groups": [{"$ref": "../nav/es-start.json"}]}`),
		"nav/es-start.json":  file(`{"group": "Inicio", "pages": ["es/index", "es/guide/setup"]}`),
		"index.mdx":          file("# Welcome\n"),
		"guide/setup.mdx":    file("# Setup\n"),
		"es/index.mdx":       file("# Bienvenido\n"),
		"es/guide/setup.mdx": file("# Instalación\n"),
		"migrate/readme.mdx": file("# Migrating from ReadMe\n"),
		"migrate/index.mdx":  file("# Migrating\n"),
	}
	m := mustMapping(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {base: /docs/}\n")
	pages, _, err := ReadFSAs(fsys, m, DetectLayout(fsys))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ids := map[string]bool{}
	for _, p := range pages {
		got = append(got, p.label()+" "+p.URL+" "+p.Title)
		ids[p.ID] = true
	}
	slices.Sort(got)
	want := []string{
		"publish/guide/setup.mdx (main) /docs/guide/setup Setup",
		"publish/guide/setup.mdx (main, es) /docs/es/guide/setup Instalación",
		"publish/index.mdx (main) /docs/ Welcome",
		"publish/index.mdx (main, es) /docs/es/ Bienvenido",
		"publish/migrate/index.mdx (main) /docs/migrate/ Migrating",
		"publish/migrate/readme.mdx (main) /docs/migrate/readme Migrating from ReadMe",
	}
	if !slices.Equal(got, want) || len(ids) != 6 {
		t.Fatalf("pages\n%q\nwant\n%q (%d ids)", got, want, len(ids))
	}
	if w := SiteWarnings(fsys, Mintlify, m); len(w) != 1 || !strings.Contains(w[0], "languages es") {
		t.Errorf("warnings %q, want one naming es", w)
	}
	fsys["nav/es-start.json"] = file(`{"$ref": "./es.json"}`)
	if _, _, err := ReadFSAs(fsys, m, Mintlify); err == nil || !strings.Contains(err.Error(), "nested references") {
		t.Errorf("a $ref loop: %v, want an error naming it", err)
	}
}
