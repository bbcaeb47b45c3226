package ingest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// mintlifyRoots reads docs.json (or mint.json): its navigation names the
// pages, by path without extension, anywhere in its tree (groups, tabs,
// anchors, dropdowns, versions). A language of navigation.languages whose
// pages live under a folder of its code (es/quickstart) is a locale: its
// pages form their own root, keep the path of the page they translate and
// get /<code> right after url.base in their URL, where Mintlify publishes
// them (the folder is part of the page's path there). Without a
// navigation page, every page file but snippets/ is read.
func mintlifyRoots(fsys fs.FS, m *Mapping) ([]versionRoot, error) {
	name, raw, err := readConfig(fsys, "docs.json", "mint.json")
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	nav, err := resolveRefs(fsys, cfg["navigation"], ".", 0)
	if err != nil {
		return nil, fmt.Errorf("%s: navigation: %w", name, err)
	}
	root := versionRoot{version: m.CurrentVersion, dir: ".", skipDirs: []string{"node_modules", "snippets"}, readmeIsPage: true}
	byLang := map[string]map[string]bool{"": {}}
	navPages(nav, false, "", byLang)
	if total(byLang) == 0 {
		return []versionRoot{root}, nil
	}
	roots := map[string]*versionRoot{"": &root}
	for lang, pages := range byLang {
		for p := range pages {
			r, rel := &root, p
			if dir, rest, ok := strings.Cut(p, "/"); ok && lang != "" && strings.EqualFold(dir, lang) {
				if roots[dir] == nil {
					roots[dir] = &versionRoot{version: m.CurrentVersion, locale: dir, dir: dir, localeInBase: true, readmeIsPage: true}
				}
				r, rel = roots[dir], rest
			}
			r.addPage(fsys, rel)
		}
	}
	out := []versionRoot{root}
	for _, loc := range sortedRootKeys(roots) {
		if loc != "" {
			out = append(out, *roots[loc])
		}
	}
	return out, nil
}

// addPage adds the page named rel (without extension, relative to the
// root's folder) when its .mdx or .md file exists.
func (r *versionRoot) addPage(fsys fs.FS, rel string) {
	if r.only == nil {
		r.only = map[string]bool{}
	}
	for _, ext := range []string{".mdx", ".md"} {
		if exists(fsys, path.Join(r.dir, rel+ext)) {
			r.only[rel+ext] = true
			return
		}
	}
}

// mintlifyLanguages lists the locales a Mintlify tree's docs.json gives
// its own folder (the locale roots mintlifyRoots makes).
func mintlifyLanguages(fsys fs.FS, m *Mapping) []string {
	rs, err := mintlifyRoots(fsys, m)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range rs {
		if r.locale != "" {
			out = append(out, r.locale)
		}
	}
	return out
}

// maxRefDepth bounds nested "$ref"s (a file referring to itself loops).
const maxRefDepth = 8

// resolveRefs replaces every {"$ref": "./file.json"} object of a Mintlify
// configuration with that file's JSON (relative to the folder of the file
// that names it), keeping the object's other members: docs.json may keep a
// language's or a tab's navigation in its own file (Mintlify's own docs
// keep fr.json, es.json, zh.json so).
func resolveRefs(fsys fs.FS, v any, dir string, depth int) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			r, err := resolveRefs(fsys, x, dir, depth)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := map[string]any{}
		if ref, ok := v["$ref"].(string); ok {
			if depth >= maxRefDepth {
				return nil, fmt.Errorf("$ref %q: more than %d nested references", ref, maxRefDepth)
			}
			file := path.Clean(path.Join(dir, ref))
			if strings.HasPrefix(ref, "/") {
				file = path.Clean(strings.TrimPrefix(ref, "/"))
			}
			raw, err := fs.ReadFile(fsys, file)
			if err != nil {
				return nil, fmt.Errorf("$ref %q: %w", ref, err)
			}
			var target any
			if err := json.Unmarshal(raw, &target); err != nil {
				return nil, fmt.Errorf("$ref %q: %s: %w", ref, file, err)
			}
			resolved, err := resolveRefs(fsys, target, path.Dir(file), depth+1)
			if err != nil {
				return nil, err
			}
			obj, isObj := resolved.(map[string]any)
			if !isObj {
				return resolved, nil
			}
			for k, x := range obj {
				out[k] = x
			}
		}
		for k, x := range v {
			if k == "$ref" {
				continue
			}
			r, err := resolveRefs(fsys, x, dir, depth)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// navPages collects the page paths of a Mintlify navigation, by language
// ("" outside navigation.languages): the strings of every "pages" list
// and every group's "root" page, at any depth. An object with a
// "language" member starts that language's pages.
func navPages(v any, inPages bool, lang string, out map[string]map[string]bool) {
	switch v := v.(type) {
	case string:
		if inPages && !strings.Contains(v, "://") {
			if out[lang] == nil {
				out[lang] = map[string]bool{}
			}
			out[lang][path.Clean(strings.TrimPrefix(v, "/"))] = true
		}
	case []any:
		for _, x := range v {
			navPages(x, inPages, lang, out)
		}
	case map[string]any:
		if l, ok := v["language"].(string); ok && l != "" {
			lang = l
		}
		for k, x := range v {
			navPages(x, k == "pages" || k == "root", lang, out)
		}
	}
}

func total(byLang map[string]map[string]bool) int {
	n := 0
	for _, pages := range byLang {
		n += len(pages)
	}
	return n
}

func sortedRootKeys(m map[string]*versionRoot) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
