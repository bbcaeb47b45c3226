package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// Page is one wiki page as the backends hold it (docs/backends.md,
// What the backends must hold), plus its content hash: what makes a run
// incremental.
type Page struct {
	ID      string
	Path    string
	URL     string
	Title   string
	Project string
	Version string
	// Locale is the language of a translated page (Docusaurus i18n), ""
	// for the site's own: a translation has the path of the page it
	// translates (so a grant covers both) but its own id and URL.
	Locale       string
	Status       string
	PathPrefixes []string
	Headings     []string
	Content      string
	// UpdatedAt is the front matter's date, else the last git commit's
	// time, else zero (absent from the document). It is not in Hash: a
	// date moves without the page changing (a commit touching other
	// lines of the file, a rebase), and no backend need re-index for it.
	UpdatedAt time.Time
	// Hash is the hex SHA-256 of the fields the gate reads (text, title,
	// URL, project, version, status, path, headings), so any change the
	// gate could show re-uploads the page, and nothing else does.
	Hash string
	// Source is the file the page came from, relative to the source root.
	Source string
}

// pageID is a Meilisearch-safe id ([A-Za-z0-9_-]: a path is not a valid id;
// docs/backends.md, Meilisearch "Write side") that stays the same across runs;
// it is computed as the sample wiki's ids are, so both load the same page
// under the same id.
func pageID(version, repoPath string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + repoPath))
	return hex.EncodeToString(sum[:12])
}

// pageKey is the page's id: pageID for the site's own language, and for a
// translation the same with its locale, so both are held side by side.
func pageKey(version, locale, repoPath string) string {
	if locale == "" {
		return pageID(version, repoPath)
	}
	return pageID(version+"\x00"+locale, repoPath)
}

// pathPrefixes lists every ancestor of p and p itself, so a scope filter needs
// only IN on whole segments (docs/backends.md, Meilisearch "Read side: what
// the gate sends").
func pathPrefixes(p string) []string {
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i := range segs {
		out = append(out, strings.Join(segs[:i+1], "/"))
	}
	return out
}

// pageURL builds the published URL of rel (relative to its version root)
// by the mapping's rule, which the gate reads backwards (package sitemap).
func (m *Mapping) pageURL(version, rel, slug string) string {
	return m.Site().PageURL(version, rel, slug)
}

// Document is the Meilisearch document of the page, fields in the order the
// gate's index lists them (id first, contentHash last).
// updatedAt is left out when the page has no date.
func (p *Page) Document() map[string]any {
	doc := p.identity()
	doc["contentHash"] = p.Hash
	if !p.UpdatedAt.IsZero() {
		doc["updatedAt"] = p.UpdatedAt.UTC().Format(time.RFC3339)
	}
	return doc
}

// identity is what the hash covers: every field of the document but the
// date and the hash itself.
func (p *Page) identity() map[string]any {
	doc := map[string]any{
		"id": p.ID, "path": p.Path, "url": p.URL, "title": p.Title,
		"project": p.Project, "version": p.Version, "status": p.Status,
		"pathPrefixes": nonNil(p.PathPrefixes), "headings": nonNil(p.Headings),
		"content": p.Content,
	}
	if p.Locale != "" {
		doc["locale"] = p.Locale
	}
	return doc
}

// computeHash fills Hash from the page's identity.
func (p *Page) computeHash() {
	raw, _ := json.Marshal(p.identity()) // map keys are sorted: a stable encoding
	sum := sha256.Sum256(raw)
	p.Hash = hex.EncodeToString(sum[:])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// label names the page in reports: the same path exists once per version.
func (p *Page) label() string { return pageLabel(p.Path, p.Version, p.Locale) }

// pageLabel is "path (version)", or "path (version, locale)" for a translation.
func pageLabel(path, version, locale string) string {
	if locale != "" {
		version += ", " + locale
	}
	return path + " (" + version + ")"
}
