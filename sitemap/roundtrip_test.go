package sitemap_test

import (
	"path/filepath"
	"strings"
	"testing"

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
