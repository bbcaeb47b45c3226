package sitemap

import (
	"errors"
	"path/filepath"
	"testing"
)

func mustParse(t *testing.T, yaml string) *Mapping {
	t.Helper()
	m, err := Parse([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The sample wiki's rule, now a mapping file: a page URL maps back to the
// path the policy places, the index of a section with or without its
// slash, a page, a versioned page.
func TestResolveTheSampleWiki(t *testing.T) {
	m, err := Load(filepath.Join("..", "samplewiki", "wiki-map.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := NewResolver(m)
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]Target{
		"/system/components/kunora-kgent/":              {"publish/system/components/kunora-kgent/index.md", "main"},
		"/system/components/kunora-kgent":               {"publish/system/components/kunora-kgent", "main"},
		"/system/components/kunora-kgent/memory":        {"publish/system/components/kunora-kgent/memory", "main"},
		"/system/components/kunora-kgent/memory.md":     {"publish/system/components/kunora-kgent/memory.md", "main"},
		"https://docs.example.com/v1.0/system/a/?q=1#x": {"publish/system/a/index.md", "v1.0"},
		"/v1.0":         {"publish/index.md", "v1.0"},
		"/":             {"publish/index.md", "main"},
		"/v9.9/system/": {"publish/system/index.md", "v9.9"},
	} {
		got, err := r.Resolve(url)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", url, got, err, want)
		}
	}
	for _, bad := range []string{"system/a", "/system/../a", "", "/a//b", "https://docs.example.com"} {
		var invalid *InvalidURLError
		if _, err := r.Resolve(bad); !errors.As(err, &invalid) {
			t.Errorf("%q: %v, want an invalid URL", bad, err)
		}
	}
}

// A Docusaurus site under /docs/ with versions, locales and a released
// version served without a segment: every shape of URL it publishes maps
// to the page, and a URL outside /docs/ is unresolved, not guessed.
func TestResolveADocusaurusSite(t *testing.T) {
	m := mustParse(t, `
pathPrefix: publish/caddy
currentVersion: current
projects: [{id: caddy, path: ""}]
url:
  base: /docs/
  versions: {current: next, "2.7": ""}
  locales: [fr, zh-Hans]
`)
	r, _, _ := NewResolver(m)
	for url, want := range map[string]Target{
		"/docs/caddyfile/directives/encode":         {"publish/caddy/caddyfile/directives/encode", "2.7"},
		"/docs/caddyfile/directives/encode/":        {"publish/caddy/caddyfile/directives/encode/index.md", "2.7"},
		"/docs/next/caddyfile/directives/encode":    {"publish/caddy/caddyfile/directives/encode", "current"},
		"/docs/2.7/caddyfile":                       {"publish/caddy/caddyfile", "2.7"},
		"/fr/docs/caddyfile/directives/encode":      {"publish/caddy/caddyfile/directives/encode", "2.7"},
		"/zh-Hans/docs/next/quick-starts/api":       {"publish/caddy/quick-starts/api", "current"},
		"/docs/fr/install":                          {"publish/caddy/install", "2.7"},
		"/docs/":                                    {"publish/caddy/index.md", "2.7"},
		"/docs":                                     {"publish/caddy/index.md", "2.7"},
		"/docs/next/":                               {"publish/caddy/index.md", "current"},
		"https://caddyserver.com/docs/install.html": {"publish/caddy/install", "2.7"},
		"/docs/guides/index.html":                   {"publish/caddy/guides/index.md", "2.7"},
	} {
		got, err := r.Resolve(url)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", url, got, err, want)
		}
	}
	for _, outside := range []string{"/blog/2024/release", "/fr/blog/x", "/documentation/x"} {
		var unresolved *UnresolvedError
		if _, err := r.Resolve(outside); !errors.As(err, &unresolved) {
			t.Errorf("%s: %v, want unresolved", outside, err)
		}
	}
}

// An MkDocs site publishes every page with a closing slash: /a/b/ is the
// page a/b.md or the folder a/b, read as a/b either way.
func TestResolveTrailingSlashSites(t *testing.T) {
	m := mustParse(t, "projects: [{id: p, path: ''}]\nurl: {trailingSlash: true, base: /handbook}\n")
	r, _, _ := NewResolver(m)
	for url, want := range map[string]string{
		"/handbook/guide/setup/": "guide/setup",
		"/handbook/guide/setup":  "guide/setup",
		"/handbook/":             "index.md",
	} {
		if got, err := r.Resolve(url); err != nil || got.Path != want || got.Version != "main" {
			t.Errorf("%s: %+v %v, want %s", url, got, err, want)
		}
	}
}

// An MkDocs site with use_directory_urls: false publishes pages as .html
// files and a folder's index as index.html: PageURL builds those URLs and
// each resolves to its page, in every version.
func TestHTMLFileSites(t *testing.T) {
	m := mustParse(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {htmlFiles: true, base: /handbook}\n")
	r, _, _ := NewResolver(m)
	for _, c := range []struct{ version, rel, url, path string }{
		{"main", "guide/setup.md", "/handbook/guide/setup.html", "publish/guide/setup"},
		{"main", "guide/index.md", "/handbook/guide/index.html", "publish/guide/index.md"},
		{"main", "README.md", "/handbook/index.html", "publish/index.md"},
		{"v1.0", "guide/README.md", "/handbook/v1.0/guide/index.html", "publish/guide/index.md"},
		{"v1.0", "faq.md", "/handbook/v1.0/faq.html", "publish/faq"},
	} {
		if got := m.PageURL(c.version, c.rel, ""); got != c.url {
			t.Errorf("PageURL(%s, %s) = %s, want %s", c.version, c.rel, got, c.url)
		}
		if got, err := r.Resolve("https://docs.example.com" + c.url); err != nil || got.Path != c.path || got.Version != c.version {
			t.Errorf("Resolve(%s) = %+v %v, want %s %s", c.url, got, err, c.path, c.version)
		}
	}
	if got := m.PageURL("main", "guide/a.md", "/start"); got != "/handbook/start.html" {
		t.Errorf("a slug's page is a file too: %s", got)
	}
}

// PageURL and Resolve are one rule read both ways: every URL PageURL
// builds (slugs aside) resolves to the page's section.
func TestPageURLRoundTrips(t *testing.T) {
	m := mustParse(t, `
pathPrefix: publish
projects: [{id: p, path: ''}]
url: {base: /docs/, versions: {main: next, "1.0": ""}, locales: [fr]}
`)
	r, _, _ := NewResolver(m)
	for _, c := range []struct{ version, rel, url, path string }{
		{"main", "guides/setup.md", "/docs/next/guides/setup", "publish/guides/setup"},
		{"1.0", "guides/setup.mdx", "/docs/guides/setup", "publish/guides/setup"},
		{"main", "guides/index.md", "/docs/next/guides/", "publish/guides/index.md"},
		{"2.0", "README.md", "/docs/2.0/", "publish/index.md"},
	} {
		if got := m.PageURL(c.version, c.rel, ""); got != c.url {
			t.Errorf("PageURL(%s, %s) = %s, want %s", c.version, c.rel, got, c.url)
		}
		if got, err := r.Resolve(c.url); err != nil || got.Path != c.path || got.Version != c.version {
			t.Errorf("Resolve(%s) = %+v %v, want %s %s", c.url, got, err, c.path, c.version)
		}
	}
}

// A front matter slug moves a page where no rule can find it: the table
// of URLs ingest stored names it, locale prefix or not.
func TestResolveThroughTheURLTable(t *testing.T) {
	dir := t.TempDir()
	table := Table{}
	table.Add("/docs/get-started/", Target{Path: "publish/tutorials/first-steps.md", Version: "main"})
	if err := WriteTable(filepath.Join(dir, "urls.json"), table); err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, "pathPrefix: publish\nprojects: [{id: p, path: ''}]\nurl: {base: /docs/, table: urls.json, locales: [fr]}\n")
	m.dir = dir
	r, missing, err := NewResolver(m)
	if err != nil || missing != "" {
		t.Fatal(err, missing)
	}
	for _, url := range []string{"/docs/get-started", "/docs/get-started/", "https://x.example/docs/get-started?a=1", "/fr/docs/get-started"} {
		if got, err := r.Resolve(url); err != nil || got.Path != "publish/tutorials/first-steps.md" {
			t.Errorf("%s: %+v %v", url, got, err)
		}
	}
	if got, _ := r.Resolve("/docs/tutorials/first-steps"); got.Path != "publish/tutorials/first-steps" {
		t.Errorf("a URL not in the table must fall back to the rules: %+v", got)
	}
	m.URL.Table = "absent.json"
	if _, missing, err := NewResolver(m); err != nil || missing == "" {
		t.Errorf("a table not written yet: %q %v, want a note and no error", missing, err)
	}
}

func TestParseRefusesMistakes(t *testing.T) {
	for name, yaml := range map[string]string{
		"two unsegmented versions": "projects: [{id: p}]\nurl: {versions: {a: '', b: ''}}\n",
		"shared segment":           "projects: [{id: p}]\nurl: {versions: {a: x, b: x}}\n",
		"locale with a slash":      "projects: [{id: p}]\nurl: {locales: [fr/ca]}\n",
		"unknown key":              "projects: [{id: p}]\nurl: {bsae: /docs/}\n",
		"no projects":              "url: {base: /docs/}\n",
		"html files with slashes":  "projects: [{id: p}]\nurl: {htmlFiles: true, trailingSlash: true}\n",
	} {
		if _, err := Parse([]byte(yaml), "m.yaml"); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}
