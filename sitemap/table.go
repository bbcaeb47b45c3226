package sitemap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Table is every page URL ingest stored, keyed by the URL's path without
// its trailing slash (the query and fragment never name a page). It is how
// the gate finds a page whose front matter slug moved it away from where
// the rules would put it: a slug is known only to whoever read the page.
type Table map[string]Target

// tableFile is the table's file format.
type tableFile struct {
	// Note says what wrote the file and how to rewrite it.
	Note string `json:"note"`
	URLs Table  `json:"urls"`
}

// TablePath is where m's URL table is (url.table, relative to the mapping
// file's folder); "" when the mapping names none.
func (m *Mapping) TablePath() string {
	if m.URL.Table == "" || filepath.IsAbs(m.URL.Table) || m.dir == "" {
		return m.URL.Table
	}
	return filepath.Join(filepath.FromSlash(m.dir), m.URL.Table)
}

// Add records that url (as PageURL built it) is the page t.
func (t Table) Add(url string, target Target) {
	segs, _, err := urlSegments(url)
	if err == nil {
		t[tableKey(segs)] = target
	}
}

func (t Table) lookup(segs []string) (Target, bool) {
	target, ok := t[tableKey(segs)]
	return target, ok
}

func tableKey(segs []string) string { return "/" + strings.Join(segs, "/") }

// LoadTable reads a URL table file.
func LoadTable(file string) (Table, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var f tableFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("url table %s: %w", file, err)
	}
	for url, target := range f.URLs {
		if !strings.HasPrefix(url, "/") || target.Path == "" || path.IsAbs(target.Path) {
			return nil, fmt.Errorf("url table %s: entry %q: want a URL path and a repository path", file, url)
		}
	}
	return f.URLs, nil
}

// WriteTable writes t to file, replacing it whole (a write to a temporary
// file renamed over the old one, so a gate reading it never sees half).
func WriteTable(file string, t Table) error {
	raw, err := json.MarshalIndent(tableFile{
		Note: "page URLs as ingest stored them; written by `wikigate project`, read by the gate (docs/ingest.md, One site mapping)",
		URLs: t,
	}, "", "  ")
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
