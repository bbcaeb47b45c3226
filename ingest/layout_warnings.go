package ingest

import (
	"io/fs"
	"slices"
	"strings"
)

// SiteWarnings names where the mapping's URL rule differs from how the
// tree's site generator publishes its pages. Ingest stores the site's
// URLs (and writes them to url.table), but the gate's rules read URLs the
// way the mapping says: a URL outside the table would be misread.
func SiteWarnings(fsys fs.FS, l Layout, m *Mapping) []string {
	var out []string
	switch l {
	case MkDocs:
		rs, err := mkdocsRoots(fsys, m)
		if err != nil || len(rs) == 0 {
			return nil
		}
		switch {
		case rs[0].htmlFiles && !m.URL.HTMLFiles:
			out = append(out, "mkdocs.yml sets use_directory_urls: false, so pages are stored at /path/page.html: set url.htmlFiles: true in the mapping (and no url.trailingSlash) so the gate's rules read the same URLs")
		case !rs[0].htmlFiles && !m.URL.TrailingSlash:
			out = append(out, "MkDocs publishes pages at /path/ (use_directory_urls): set url.trailingSlash: true in the mapping, unless the site sets use_directory_urls: false")
		}
	case Mintlify:
		var missing []string
		for _, loc := range mintlifyLanguages(fsys, m) {
			if !slices.Contains(m.URL.Locales, loc) {
				missing = append(missing, loc)
			}
		}
		if len(missing) > 0 {
			out = append(out, "docs.json's languages "+strings.Join(missing, ", ")+" are stored under /<language>/: add them to url.locales in the mapping so the gate's rules scope a translation as the page it translates")
		}
	}
	return out
}
