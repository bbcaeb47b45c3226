package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wikigate/wikigate/meili"
)

// MinMeiliVersion is the oldest Meilisearch whose search API has what the
// gate sends (showRankingScore came in 1.3; IN filters and tenant tokens
// with apiKeyUid are older).
var MinMeiliVersion = version{1, 3, 0}

// MeiliTarget is the gate's Meilisearch configuration plus the key doctor
// reads settings and documents with.
type MeiliTarget struct {
	URL, Index string
	// APIKey, TenantKey and TenantKeyUID are the gate's credentials.
	APIKey, TenantKey, TenantKeyUID string
	// AdminKey reads /version, the index, its settings and documents
	// (actions version, indexes.get, settings.get, documents.get). The
	// gate's search-only key cannot: empty means APIKey is tried.
	AdminKey string
}

// Fields the gate reads from a hit, and the attributes its filters name
// (meili.Hit, meili/filter.go).
var (
	meiliFilterable = []string{"project", "version", "status", "path", "pathPrefixes"}
	meiliSearchable = []string{"title", "content"}
	meiliDisplayed  = []string{"id", "path", "url", "title", "project", "version", "status", "pathPrefixes", "headings", "content"}
	meiliDocStrings = []string{"path", "url", "title", "project", "version", "status", "content"}
)

const meiliName = "meilisearch"

func checkMeili(ctx context.Context, r *Report, cfg Config) {
	m := cfg.Meili
	var health struct{ Status string }
	if _, err := getJSON(ctx, cfg.HTTP, m.URL, "/health", "", &health); err != nil || health.Status != "available" {
		r.add(meiliName, Fail, "%s/health: not available (%v): nothing else checked", m.URL, errOr(err, health.Status))
		return
	}
	admin := m.AdminKey
	if admin == "" {
		admin = m.APIKey
	}
	checkMeiliVersion(ctx, r, cfg, admin)
	if !checkMeiliIndex(ctx, r, cfg, admin) {
		return
	}
	checkMeiliSettings(ctx, r, cfg, admin)
	checkMeiliDocuments(ctx, r, cfg, admin)
	checkGateSearch(ctx, r, cfg)
	checkSearchKeyIsSearchOnly(ctx, r, cfg)
}

func errOr(err error, status string) any {
	if err != nil {
		return err
	}
	return "status " + status
}

func checkMeiliVersion(ctx context.Context, r *Report, cfg Config, key string) {
	var v struct {
		PkgVersion string `json:"pkgVersion"`
	}
	if _, err := getJSON(ctx, cfg.HTTP, cfg.Meili.URL, "/version", key, &v); err != nil {
		r.add(meiliName, Warn, "version not read (%v); the gate needs Meilisearch %s or later", err, MinMeiliVersion)
		return
	}
	got, ok := parseVersion(v.PkgVersion)
	switch {
	case !ok:
		r.add(meiliName, Warn, "version %q not understood; the gate needs %s or later", v.PkgVersion, MinMeiliVersion)
	case got.less(MinMeiliVersion):
		r.add(meiliName, Fail, "version %s is older than %s, the oldest the gate supports", v.PkgVersion, MinMeiliVersion)
	default:
		r.add(meiliName, OK, "version %s", v.PkgVersion)
	}
}

// checkMeiliIndex: the index exists with primary key id; false stops the
// index checks.
func checkMeiliIndex(ctx context.Context, r *Report, cfg Config, key string) bool {
	var ix struct {
		PrimaryKey *string `json:"primaryKey"`
	}
	path := "/indexes/" + url.PathEscape(cfg.Meili.Index)
	if _, err := getJSON(ctx, cfg.HTTP, cfg.Meili.URL, path, key, &ix); err != nil {
		r.add(meiliName, Fail, "index %q: %v (load it with wikigate ingest; reading needs a key with indexes.get, see --meili-key)", cfg.Meili.Index, err)
		return false
	}
	if ix.PrimaryKey == nil || *ix.PrimaryKey != "id" {
		r.add(meiliName, Fail, "index %q: primary key is %s, want id", cfg.Meili.Index, strOrNull(ix.PrimaryKey))
		return true
	}
	r.add(meiliName, OK, "index %q exists, primary key id", cfg.Meili.Index)
	return true
}

func strOrNull(s *string) string {
	if s == nil {
		return "not set"
	}
	return fmt.Sprintf("%q", *s)
}

// meiliSettings is the part of GET /indexes/{uid}/settings checked.
// filterableAttributes holds names or, since 1.14, objects with
// attributePatterns.
type meiliSettings struct {
	Filterable []json.RawMessage `json:"filterableAttributes"`
	Searchable []string          `json:"searchableAttributes"`
	Displayed  []string          `json:"displayedAttributes"`
	StopWords  []string          `json:"stopWords"`
}

func checkMeiliSettings(ctx context.Context, r *Report, cfg Config, key string) {
	var s meiliSettings
	path := "/indexes/" + url.PathEscape(cfg.Meili.Index) + "/settings"
	if _, err := getJSON(ctx, cfg.HTTP, cfg.Meili.URL, path, key, &s); err != nil {
		r.add(meiliName, Fail, "settings of %q not read: %v (needs a key with settings.get: --meili-key or WIKIGATE_MEILI_KEY)", cfg.Meili.Index, err)
		return
	}
	patterns := filterablePatterns(s.Filterable)
	report := func(what string, missing []string, why string) {
		if len(missing) > 0 {
			r.add(meiliName, Fail, "index %q: %s attributes lack %s (%s)", cfg.Meili.Index, what, strings.Join(missing, ", "), why)
		} else {
			r.add(meiliName, OK, "index %q: %s attributes cover what the gate needs", cfg.Meili.Index, what)
		}
	}
	report("filterable", missingFrom(patterns, meiliFilterable), "the gate filters every search by them; a search would fail with invalid_search_filter")
	report("searchable", missingFrom(s.Searchable, meiliSearchable), "questions would not match page text")
	report("displayed", missingFrom(s.Displayed, meiliDisplayed), "hits would lack the fields of a citation")
	if len(s.StopWords) == 0 {
		r.add(meiliName, Warn, "index %q has no stop words: questions rank on words like \"how\" and \"the\" (wikigate ingest sets English ones)", cfg.Meili.Index)
	}
}

// filterablePatterns flattens both shapes of filterableAttributes.
func filterablePatterns(raw []json.RawMessage) []string {
	var out []string
	for _, item := range raw {
		var name string
		if json.Unmarshal(item, &name) == nil {
			out = append(out, name)
			continue
		}
		var obj struct {
			AttributePatterns []string `json:"attributePatterns"`
		}
		if json.Unmarshal(item, &obj) == nil {
			out = append(out, obj.AttributePatterns...)
		}
	}
	return out
}

// missingFrom lists the wanted attributes no pattern covers ("*" covers
// all, "a*" a prefix, "*a" a suffix).
func missingFrom(patterns, want []string) []string {
	var missing []string
	for _, w := range want {
		if !slices.ContainsFunc(patterns, func(p string) bool { return patternCovers(p, w) }) {
			missing = append(missing, w)
		}
	}
	return missing
}

func patternCovers(p, attr string) bool {
	switch {
	case p == "*" || p == attr:
		return true
	case strings.HasSuffix(p, "*"):
		return strings.HasPrefix(attr, strings.TrimSuffix(p, "*"))
	case strings.HasPrefix(p, "*"):
		return strings.HasSuffix(attr, strings.TrimPrefix(p, "*"))
	}
	return false
}

// checkMeiliDocuments reads a sample of pages and names those missing a
// field the gate cites, or outside the catalog.
func checkMeiliDocuments(ctx context.Context, r *Report, cfg Config, key string) {
	var page struct {
		Results []map[string]any `json:"results"`
		Total   int              `json:"total"`
	}
	path := fmt.Sprintf("/indexes/%s/documents?limit=%d", url.PathEscape(cfg.Meili.Index), cfg.Sample)
	if _, err := getJSON(ctx, cfg.HTTP, cfg.Meili.URL, path, key, &page); err != nil {
		r.add(meiliName, Fail, "documents of %q not read: %v (needs documents.get)", cfg.Meili.Index, err)
		return
	}
	if len(page.Results) == 0 {
		r.add(meiliName, Fail, "index %q holds no pages (load it with wikigate ingest)", cfg.Meili.Index)
		return
	}
	bad := 0
	for _, doc := range page.Results {
		if msg := meiliDocProblem(doc, cfg.Catalog); msg != "" {
			bad++
			r.add(meiliName, Fail, "page %v: %s", doc["id"], msg)
		}
	}
	if bad == 0 {
		r.add(meiliName, OK, "%d sampled page(s) of %d carry every field the gate cites", len(page.Results), page.Total)
	}
}

func meiliDocProblem(doc map[string]any, c Catalog) string {
	var missing []string
	for _, f := range meiliDocStrings {
		if s, _ := doc[f].(string); s == "" {
			missing = append(missing, f)
		}
	}
	if p, _ := doc["pathPrefixes"].([]any); len(p) == 0 {
		missing = append(missing, "pathPrefixes")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "missing or empty " + strings.Join(missing, ", ")
	}
	project, version, status := doc["project"].(string), doc["version"].(string), doc["status"].(string)
	if !c.has(project, version, status) {
		return fmt.Sprintf("project %s, version %s, status %s is not in the catalog: no decision can reach it", project, version, status)
	}
	return ""
}

// checkGateSearch searches as the gate does: with a tenant token when one
// is configured, else the gate's key.
func checkGateSearch(ctx context.Context, r *Report, cfg Config) {
	m := cfg.Meili
	bearer, how := m.APIKey, "the gate's api_key"
	if m.TenantKey != "" {
		filter := "project IN " + quoted(cfg.Catalog.projects())
		tok, err := meili.MintTenantToken(m.TenantKey, m.TenantKeyUID, m.Index, filter, time.Now().Add(time.Minute))
		if err != nil {
			r.add(meiliName, Fail, "tenant token not minted: %v", err)
			return
		}
		bearer, how = tok, "a tenant token signed with the gate's tenant_key"
	}
	if err := searchOnce(ctx, cfg.HTTP, m, bearer); err != nil {
		r.add(meiliName, Fail, "search with %s refused: %v", how, err)
		return
	}
	r.add(meiliName, OK, "search with %s works", how)
}

func searchOnce(ctx context.Context, hc *http.Client, m MeiliTarget, bearer string) error {
	target := strings.TrimRight(m.URL, "/") + "/indexes/" + url.PathEscape(m.Index) + "/search"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader([]byte(`{"q":"","limit":1}`)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorMessage(buf.Bytes()))
	}
	return nil
}

// checkSearchKeyIsSearchOnly warns when the gate's keys can read index
// settings: a leaked gate key would then give more than search.
func checkSearchKeyIsSearchOnly(ctx context.Context, r *Report, cfg Config) {
	m := cfg.Meili
	path := "/indexes/" + url.PathEscape(m.Index) + "/settings"
	for _, k := range []struct{ name, key string }{{"api_key", m.APIKey}, {"tenant_key", m.TenantKey}} {
		if k.key == "" || (k.name == "tenant_key" && k.key == m.APIKey) {
			continue // none, or the same key already tried
		}
		var ignored json.RawMessage
		if _, err := getJSON(ctx, cfg.HTTP, m.URL, path, k.key, &ignored); err == nil {
			r.add(meiliName, Warn, "the gate's %s can read index settings: it holds more than the search action (give the gate a search-only key; docs/backends.md, What the backends must hold)", k.name)
		}
	}
}

func (c Catalog) projects() []string {
	out := make([]string, 0, len(c.Datasets))
	for p := range c.Datasets {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = meili.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
