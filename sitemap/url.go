package sitemap

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// URLRule says how pages are published as URLs, the way a Docusaurus site
// does by default: Base + [version segment/] + path without extension, an
// index page naming its folder; a front matter slug replaces the path part.
// The gate reads the same rule backwards (Resolve).
type URLRule struct {
	// Base is the URL path the docs are served under (default "/"; a
	// Docusaurus site with routeBasePath docs: "/docs/").
	Base string `yaml:"base"`
	// NoVersionSegment drops the /<version>/ segment of older versions.
	NoVersionSegment bool `yaml:"noVersionSegment"`
	// Versions names a version's URL segment when it is not the version's
	// name: Docusaurus serves docs/ at /docs/next/ and the last release at
	// /docs/ once versions exist ({main: next, "1.0": ""}). Without an
	// entry, the current version has no segment and every other version
	// its name.
	Versions map[string]string `yaml:"versions"`
	// Locales are the URL prefixes of translated pages (Docusaurus i18n:
	// /fr/docs/intro). The gate drops one before or inside Base: a
	// translation is scoped as the page it translates.
	Locales []string `yaml:"locales"`
	// TrailingSlash publishes every page URL with a closing slash, as
	// MkDocs does (/guide/setup/); default without (/guide/setup).
	TrailingSlash bool `yaml:"trailingSlash"`
	// HTMLFiles publishes every page as a file, as MkDocs does with
	// use_directory_urls: false: /guide/setup.html, a folder's index page
	// at /guide/index.html. Ingest sets it for an MkDocs tree whose
	// mkdocs.yml says so.
	HTMLFiles bool `yaml:"htmlFiles"`
	// Table is the file (relative to the mapping file) holding the URL of
	// every page as ingest stored it, written by `wikigate project`. The
	// gate looks a URL up there first: it is how a page whose front matter
	// slug moved it is found. Without it the rules alone map URLs.
	Table string `yaml:"table"`

	// defaultVersion is the version of URLs without a version segment.
	defaultVersion string
	// bySegment maps a version segment to its version.
	bySegment map[string]string
}

// versionLike is a URL segment read as a docs version when the mapping
// lists none: v1.0, 1.0, 2.x. A segment that looks like a version nobody
// publishes is still the page's version, so the policy refuses it rather
// than answering from another version.
var versionLike = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)*(\.x)?$`)

func (u *URLRule) normalize(current string) error {
	if u.Base == "" {
		u.Base = "/"
	}
	u.Base = "/" + strings.Trim(u.Base, "/") + "/"
	if u.Base == "//" {
		u.Base = "/"
	}
	if strings.Contains(u.Base, "//") || strings.ContainsAny(u.Base, "?#") {
		return fmt.Errorf("url.base %q: want a URL path such as /docs/", u.Base)
	}
	if u.HTMLFiles && u.TrailingSlash {
		return errors.New("url.htmlFiles and url.trailingSlash: a site publishes pages one way, pick one")
	}
	for _, l := range u.Locales {
		if l == "" || strings.Contains(l, "/") {
			return fmt.Errorf("url.locales: %q: want one URL segment such as fr", l)
		}
	}
	u.defaultVersion, u.bySegment = current, map[string]string{}
	unsegmented := ""
	for _, v := range sortedKeys(u.Versions) {
		seg := strings.Trim(u.Versions[v], "/")
		if strings.Contains(seg, "/") {
			return fmt.Errorf("url.versions: %q: %q is more than one URL segment", v, seg)
		}
		if seg == "" {
			if unsegmented != "" {
				return fmt.Errorf("url.versions: %q and %q both have no URL segment", unsegmented, v)
			}
			unsegmented, u.defaultVersion = v, v
			continue
		}
		if other, dup := u.bySegment[seg]; dup {
			return fmt.Errorf("url.versions: %q and %q share the URL segment %q", other, v, seg)
		}
		u.bySegment[seg] = v
		u.Versions[v] = seg
	}
	return nil
}

// segment is the URL segment of version ("" for none).
func (u *URLRule) segment(version, current string) string {
	if u.NoVersionSegment {
		return ""
	}
	if seg, ok := u.Versions[version]; ok {
		return seg
	}
	if version == current {
		return ""
	}
	return version
}

// versionOf reads seg as a version segment: the version and true, or
// false when seg is the first segment of a page path.
func (u *URLRule) versionOf(seg, current string) (string, bool) {
	if u.NoVersionSegment {
		return "", false
	}
	if v, ok := u.bySegment[seg]; ok {
		return v, true
	}
	if seg == "next" && len(u.Versions) == 0 {
		return current, true
	}
	return seg, versionLike.MatchString(seg)
}

// PageURL builds the published URL of rel (relative to its version root)
// in version, with the page's front matter slug ("" for none).
func (m *Mapping) PageURL(version, rel, slug string) string {
	var p string
	switch {
	case strings.HasPrefix(slug, "/"):
		p = strings.TrimPrefix(slug, "/")
	case slug != "":
		p = path.Join(path.Dir(rel), slug)
	default:
		p = strings.TrimSuffix(rel, path.Ext(rel))
		if isIndexName(path.Base(p)) {
			p = strings.TrimSuffix(p, path.Base(p))
		}
	}
	p = strings.TrimPrefix(p, "./")
	if seg := m.URL.segment(version, m.CurrentVersion); seg != "" {
		p = seg + "/" + p
	}
	u := m.URL.Base + p
	switch {
	case m.URL.HTMLFiles:
		return htmlFile(u)
	case m.URL.TrailingSlash && !strings.HasSuffix(u, "/"):
		return u + "/"
	}
	return u
}

// htmlFile is the file a page URL is served as on a site of .html files:
// a folder's URL names its index.html.
func htmlFile(u string) string {
	if strings.HasSuffix(u, "/") {
		return u + "index.html"
	}
	return u + ".html"
}

// isIndexName: index.md and README.md name their folder (Docusaurus and
// MkDocs both publish them at the folder's URL).
func isIndexName(base string) bool {
	return base == "index" || strings.EqualFold(base, "readme")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
