package sitemap

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Target is the page a URL names: its repository path and docs version.
type Target struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// InvalidURLError is a page URL no site could publish (not a URL, a
// relative path, a "." or ".." segment): the caller's mistake.
type InvalidURLError struct{ Reason string }

func (e *InvalidURLError) Error() string { return "page.url " + e.Reason }

// UnresolvedError is a well-formed URL outside the mapped site (another
// base, another host's page): the question keeps the default scope and the
// reason goes to the audit record.
type UnresolvedError struct{ Reason string }

func (e *UnresolvedError) Error() string { return e.Reason }

// maxURLBytes bounds the URLs read (a page path is at most 1024 bytes).
const maxURLBytes = 2048

// Resolver maps page URLs back to pages: first through the table of URLs
// ingest stored (URL.Table), then by the mapping's rules.
type Resolver struct {
	m     *Mapping
	table Table
}

// NewResolver reads m's URL table when it names one. A table that does not
// exist yet (no ingest run) leaves the rules alone, and missing says so; a
// table that cannot be read is an error.
func NewResolver(m *Mapping) (r *Resolver, missing string, err error) {
	r = &Resolver{m: m}
	if m.URL.Table == "" {
		return r, "", nil
	}
	file := m.TablePath()
	t, err := LoadTable(file)
	if err != nil {
		if isNotExist(err) {
			return r, fmt.Sprintf("url table %s does not exist yet (`wikigate ingest` and `wikigate project` write it): page URLs are mapped by the rules only", file), nil
		}
		return nil, "", err
	}
	r.table = t
	return r, "", nil
}

// Mapping is the mapping r reads.
func (r *Resolver) Mapping() *Mapping { return r.m }

// Resolve maps a page URL (absolute, or a path starting with /) to the
// page's path and version. The query and fragment are ignored.
func (r *Resolver) Resolve(raw string) (Target, error) {
	segs, trailing, err := urlSegments(raw)
	if err != nil {
		return Target{}, err
	}
	if t, ok := r.lookup(segs); ok {
		return t, nil
	}
	return r.m.resolveByRules(segs, trailing)
}

// lookup finds the URL in the table as given, then without its locale
// segment: a translation is scoped as the page it translates.
func (r *Resolver) lookup(segs []string) (Target, bool) {
	if len(r.table) == 0 {
		return Target{}, false
	}
	if t, ok := r.table.lookup(segs); ok {
		return t, true
	}
	rest, ok := r.m.underBase(segs)
	if !ok {
		return Target{}, false
	}
	return r.table.lookup(append(baseSegments(r.m.URL.Base), rest...))
}

// CheckURL refuses what no site publishes as a page URL (an
// *InvalidURLError): not a URL, no path, a relative, empty, "." or ".."
// segment. The gate checks a page.url with it before the call goes on.
func CheckURL(raw string) error {
	_, _, err := urlSegments(raw)
	return err
}

// urlSegments splits the URL's path into segments, refusing what no page
// URL holds.
func urlSegments(raw string) (segs []string, trailing bool, err error) {
	if len(raw) > maxURLBytes {
		return nil, false, &InvalidURLError{"is too long"}
	}
	u, perr := url.Parse(raw)
	if perr != nil || u.Path == "" || !strings.HasPrefix(u.Path, "/") {
		return nil, false, &InvalidURLError{"must be a URL whose path starts with /"}
	}
	p := strings.TrimPrefix(u.Path, "/")
	trailing = p == "" || strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, trailing, nil
	}
	segs = strings.Split(p, "/")
	for _, s := range segs {
		switch s {
		case "":
			return nil, false, &InvalidURLError{"must not contain empty segments"}
		case ".", "..":
			return nil, false, &InvalidURLError{`must not contain "." or ".." segments`}
		}
	}
	return segs, trailing, nil
}

// resolveByRules reads the URL as PageURL builds it: base (with a locale
// segment dropped), version segment, page path.
func (m *Mapping) resolveByRules(segs []string, trailing bool) (Target, error) {
	rest, ok := m.underBase(segs)
	if !ok {
		return Target{}, &UnresolvedError{fmt.Sprintf("page.url /%s is outside the site mapping's url.base %s", strings.Join(segs, "/"), m.URL.Base)}
	}
	version := m.URL.defaultVersion
	if len(rest) > 0 {
		if v, ok := m.URL.versionOf(rest[0], m.CurrentVersion); ok {
			version, rest = v, rest[1:]
			trailing = trailing || len(rest) == 0
		}
	}
	return Target{Path: m.PagePath(pageRel(rest, trailing && !m.URL.TrailingSlash)), Version: version}, nil
}

// pageRel is the page path within its version root. A URL ending in /
// names its folder's index page on a site whose pages have no slash;
// without it, /a/b may be the page b.md or the folder b/ served without
// its slash, so it maps to a/b, which the policy reads either way (a
// page's section is its parent directory, and a project's root stays
// inside the project). A URL naming a file (.md, .mdx) keeps it; .html is
// dropped.
func pageRel(rest []string, folder bool) string {
	rel := strings.Join(rest, "/")
	if b := path.Base(rel); strings.HasSuffix(b, ".html") {
		rel = strings.TrimSuffix(rel, ".html")
		if path.Base(rel) == "index" {
			rel, folder = strings.TrimSuffix(strings.TrimSuffix(rel, "index"), "/"), true
		}
	}
	if rel == "" || folder {
		return strings.TrimPrefix(rel+"/index.md", "/")
	}
	return rel
}

// underBase strips url.base from segs, with one locale segment before,
// inside or right after it: /fr/docs/x, /site/fr/docs/x, /docs/fr/x.
func (m *Mapping) underBase(segs []string) ([]string, bool) {
	base := baseSegments(m.URL.Base)
	if rest, ok := cutPrefix(segs, base); ok {
		if len(rest) > 0 && slices.Contains(m.URL.Locales, rest[0]) {
			rest = rest[1:]
		}
		return rest, true
	}
	for i := 0; i < len(segs) && i <= len(base); i++ {
		if !slices.Contains(m.URL.Locales, segs[i]) {
			continue
		}
		without := slices.Concat(segs[:i:i], segs[i+1:])
		if rest, ok := cutPrefix(without, base); ok {
			return rest, true
		}
	}
	return nil, false
}

func cutPrefix(segs, prefix []string) ([]string, bool) {
	if len(segs) < len(prefix) || !slices.Equal(segs[:len(prefix)], prefix) {
		return nil, false
	}
	return segs[len(prefix):], true
}

// baseSegments splits url.base ("/" has none).
func baseSegments(base string) []string {
	if base = strings.Trim(base, "/"); base == "" {
		return nil
	}
	return strings.Split(base, "/")
}
