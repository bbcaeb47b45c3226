package gateway

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/sitemap"
)

func resolverFor(t *testing.T, yaml string) *sitemap.Resolver {
	t.Helper()
	m, err := sitemap.Parse([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := sitemap.NewResolver(m)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A page URL maps back, through the sample wiki's mapping file, to a
// repository path the policy can place: a section's index with or without
// its slash, a page, a versioned page.
func TestPagePathFromURL(t *testing.T) {
	m, err := sitemap.Load(filepath.Join("..", "samplewiki", "wiki-map.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	site, _, _ := sitemap.NewResolver(m)
	for url, want := range map[string][2]string{
		"/system/components/kunora-kgent/":              {"publish/system/components/kunora-kgent/index.md", "main"},
		"/system/components/kunora-kgent":               {"publish/system/components/kunora-kgent", "main"},
		"/system/components/kunora-kgent/memory":        {"publish/system/components/kunora-kgent/memory", "main"},
		"/system/components/kunora-kgent/memory.md":     {"publish/system/components/kunora-kgent/memory.md", "main"},
		"https://docs.example.com/v1.0/system/a/?q=1#x": {"publish/system/a/index.md", "v1.0"},
		"/": {"publish/index.md", "main"},
	} {
		p := &protocol.PageRef{URL: url}
		rec := &audit.Record{}
		if err := normalizePage(p); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		resolvePage(site, p, rec)
		if p.Path != want[0] || p.Version != want[1] || rec.PageNote != "" {
			t.Errorf("%s: %q %q (note %q), want %q %q", url, p.Path, p.Version, rec.PageNote, want[0], want[1])
		}
	}
	for _, bad := range []string{"system/a", "/system/../a", "/a//b", strings.Repeat("/a", 600)} {
		if err := normalizePage(&protocol.PageRef{URL: bad}); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// A Docusaurus site under /docs/ (the URL ingest stored for the Caddy
// docs' encode page, a /docs/next/ page, a French one): each maps to its
// page. A URL outside /docs/ is not guessed: the page has no path, so the
// question keeps the default scope, and the audit record says why.
func TestPageURLThroughADocusaurusMapping(t *testing.T) {
	site := resolverFor(t, "pathPrefix: publish/caddy\nprojects: [{id: caddy, path: ''}]\nurl: {base: /docs/, locales: [fr]}\n")
	for url, want := range map[string][2]string{
		"https://caddyserver.com/docs/caddyfile/directives/encode": {"publish/caddy/caddyfile/directives/encode", "main"},
		"/docs/next/caddyfile/directives/":                         {"publish/caddy/caddyfile/directives/index.md", "main"},
		"/fr/docs/v2.7/install":                                    {"publish/caddy/install", "v2.7"},
	} {
		p, rec := &protocol.PageRef{URL: url}, &audit.Record{}
		resolvePage(site, p, rec)
		if p.Path != want[0] || p.Version != want[1] {
			t.Errorf("%s: %q %q, want %q %q", url, p.Path, p.Version, want[0], want[1])
		}
	}
	p, rec := &protocol.PageRef{URL: "/blog/release-2.8"}, &audit.Record{}
	resolvePage(site, p, rec)
	if p.Path != "" || p.Version != "" || !strings.Contains(rec.PageNote, "outside the site mapping's url.base /docs/") {
		t.Errorf("a URL outside the site: %q %q, note %q", p.Path, p.Version, rec.PageNote)
	}
	p, rec = &protocol.PageRef{URL: "/docs/install"}, &audit.Record{}
	resolvePage(nil, p, rec)
	if p.Path != "" || !strings.Contains(rec.PageNote, "no site_mapping") {
		t.Errorf("a gate without a mapping: %q, note %q", p.Path, rec.PageNote)
	}
}
