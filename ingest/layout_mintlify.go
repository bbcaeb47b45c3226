package ingest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// mintlifyRoots reads docs.json (or mint.json): the site root is the one
// root and its navigation names the pages, by path without extension,
// anywhere in its tree (groups, tabs, anchors, dropdowns, versions,
// languages). Without a navigation page, every page file but snippets/
// is read.
func mintlifyRoots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	name, raw, err := readConfig(fsys, "docs.json", "mint.json")
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	root := versionRoot{version: m.CurrentVersion, dir: ".", skipDirs: []string{"node_modules", "snippets"}}
	pages := map[string]bool{}
	navPages(cfg["navigation"], false, pages)
	if len(pages) == 0 {
		return []versionRoot{root}, nil
	}
	root.only = map[string]bool{}
	for p := range pages {
		for _, ext := range []string{".mdx", ".md"} {
			if exists(fsys, p+ext) {
				root.only[p+ext] = true
				break
			}
		}
	}
	return []versionRoot{root}, nil
}

// navPages collects the page paths of a Mintlify navigation: the strings
// of every "pages" list and every group's "root" page, at any depth.
func navPages(v any, inPages bool, out map[string]bool) {
	switch v := v.(type) {
	case string:
		if inPages && !strings.Contains(v, "://") {
			out[path.Clean(strings.TrimPrefix(v, "/"))] = true
		}
	case []any:
		for _, x := range v {
			navPages(x, inPages, out)
		}
	case map[string]any:
		for k, x := range v {
			navPages(x, k == "pages" || k == "root", out)
		}
	}
}
