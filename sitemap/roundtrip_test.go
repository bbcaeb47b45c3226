package sitemap_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wikigate/wikigate/ingest"
	"github.com/wikigate/wikigate/sitemap"
)

// Every URL ingest stores for the sample wiki maps back, through the same
// mapping file, to the page it was built from and the page's version.
func TestEveryStoredURLResolvesToItsPage(t *testing.T) {
	file := filepath.Join("..", "samplewiki", "wiki-map.yaml")
	m, err := ingest.LoadMapping(file)
	if err != nil {
		t.Fatal(err)
	}
	pages, fails, err := ingest.ReadTree(filepath.Join("..", "samplewiki", "site"), m)
	if err != nil || len(fails) > 0 || len(pages) < 20 {
		t.Fatalf("reading the sample wiki: %d pages, %v %v", len(pages), fails, err)
	}
	r, _, err := sitemap.NewResolver(m.Site())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		got, err := r.Resolve("https://docs.example.com" + p.URL)
		want := strings.TrimSuffix(strings.TrimSuffix(p.Path, ".md"), ".mdx")
		if strings.HasSuffix(p.Path, "/index.md") {
			want = p.Path
		}
		if err != nil || got.Path != want || got.Version != p.Version {
			t.Errorf("%s (%s %s): %+v %v", p.URL, p.Path, p.Version, got, err)
		}
	}
}

// The URLs ingest stores for an MkDocs site of .html files and for a
// Mintlify site's translations map back, through the mapping's rules
// alone (no url.table), to the page each was built from.
func TestHTMLFilesAndMintlifyLocalesResolveToTheirPages(t *testing.T) {
	for name, c := range map[string]struct {
		mapping string
		fsys    fstest.MapFS
	}{
		"mkdocs use_directory_urls false": {
			"pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {htmlFiles: true}\n",
			fstest.MapFS{
				"mkdocs.yml":          {Data: []byte("site_name: x\nuse_directory_urls: false\n")},
				"docs/index.md":       {Data: []byte("# Home\n")},
				"docs/guide/setup.md": {Data: []byte("# Setup\n")},
				"docs/guide/index.md": {Data: []byte("# Guide\n")},
			},
		},
		"mintlify languages": {
			"pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {base: /docs/, locales: [fr]}\n",
			fstest.MapFS{
				"docs.json": {Data: []byte(`{"navigation": {"languages": [{"language": "en", "pages": ["index", "guide/setup"]},
					{"language": "fr", "pages": ["fr/index", "fr/guide/setup"]}]}}`)},
				"index.mdx":          {Data: []byte("# Home\n")},
				"guide/setup.mdx":    {Data: []byte("# Setup\n")},
				"fr/index.mdx":       {Data: []byte("# Accueil\n")},
				"fr/guide/setup.mdx": {Data: []byte("# Installation\n")},
			},
		},
	} {
		m, err := ingest.ParseMapping([]byte(c.mapping), name)
		if err != nil {
			t.Fatal(err)
		}
		pages, fails, err := ingest.ReadFS(c.fsys, m)
		if err != nil || len(fails) > 0 || len(pages) != 4 && len(pages) != 3 {
			t.Fatalf("%s: %d pages, %v %v", name, len(pages), fails, err)
		}
		r, _, err := sitemap.NewResolver(m.Site())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			got, err := r.Resolve("https://docs.example.com" + p.URL)
			want := strings.TrimSuffix(strings.TrimSuffix(p.Path, ".md"), ".mdx")
			if strings.HasSuffix(p.Path, "index.md") || strings.HasSuffix(p.Path, "index.mdx") {
				want = strings.TrimSuffix(want, "index") + "index.md"
			}
			if err != nil || got.Path != want {
				t.Errorf("%s: %s (%s): %+v %v, want %s", name, p.URL, p.Path, got, err, want)
			}
		}
	}
}
