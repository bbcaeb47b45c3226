package ingest

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// mkdocsRoots reads mkdocs.yml: docs_dir (default docs) is the one root,
// nav's "Title: page.md" entries title their pages, as MkDocs does, and
// use_directory_urls: false publishes them as .html files (htmlFiles).
// The file is read as YAML nodes, so the !!python/name tags Material's
// configurations carry are no error.
func mkdocsRoots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	name, raw, err := readConfig(fsys, "mkdocs.yml", "mkdocs.yaml")
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	root := versionRoot{version: m.CurrentVersion, dir: "docs", titles: map[string]string{}}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		top := doc.Content[0]
		if d := mapValue(top, "docs_dir"); d != nil && d.Kind == yaml.ScalarNode {
			root.dir = cleanDir(d.Value)
		}
		if nav := mapValue(top, "nav"); nav != nil {
			navTitles(nav, root.titles)
		}
		if d := mapValue(top, "use_directory_urls"); d != nil {
			var dirURLs bool
			if err := d.Decode(&dirURLs); err != nil {
				return nil, fmt.Errorf("%s: use_directory_urls: %w", name, err)
			}
			root.htmlFiles = !dirURLs
		}
	}
	if st, err := fs.Stat(fsys, root.dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: docs_dir %q is not a folder", name, root.dir)
	}
	return []versionRoot{root}, nil
}

// mapValue is the value of key in a YAML mapping node.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// navTitles collects "Title: file.md" leaves of an MkDocs nav.
func navTitles(n *yaml.Node, out map[string]string) {
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			navTitles(c, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode && isPageFile(v.Value) {
				out[path.Clean(v.Value)] = k.Value
			} else {
				navTitles(v, out)
			}
		}
	}
}

func cleanDir(d string) string {
	d = path.Clean(strings.Trim(strings.ReplaceAll(d, "\\", "/"), "/"))
	if d == "" {
		return "."
	}
	return d
}
