package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readTestSite(t *testing.T, mapping string) ([]Page, []Failure) {
	t.Helper()
	m, err := LoadMapping(filepath.Join("testdata", mapping))
	if err != nil {
		t.Fatal(err)
	}
	pages, fails, err := ReadTree(filepath.Join("testdata", "site"), m)
	if err != nil {
		t.Fatal(err)
	}
	return pages, fails
}

func byPath(pages []Page, version, p string) *Page {
	for i := range pages {
		if pages[i].Path == p && pages[i].Version == version {
			return &pages[i]
		}
	}
	return nil
}

func TestReadTreeMapsDocusaurusSite(t *testing.T) {
	pages, fails := readTestSite(t, "mapping.yaml")
	if len(pages) != 5 {
		t.Fatalf("got %d pages, want 5 (partials skipped, orphan failed): %+v", len(pages), pages)
	}
	if len(fails) != 1 || fails[0].Path != filepath.FromSlash("docs/orphan.md") || !strings.Contains(fails[0].Err, "no project") {
		t.Fatalf("failures = %+v, want docs/orphan.md without a project", fails)
	}
	idx := byPath(pages, "main", "publish/system/components/kunora-kgent/index.md")
	if idx == nil {
		t.Fatal("kgent index page missing")
	}
	want := Page{
		ID: pageID("main", idx.Path), Path: idx.Path, URL: "/system/components/kunora-kgent/",
		Title: "kgent overview", Project: "kunora-kgent", Version: "main", Status: "approved",
		PathPrefixes: []string{"publish", "publish/system", "publish/system/components",
			"publish/system/components/kunora-kgent", "publish/system/components/kunora-kgent/index.md"},
		Headings:  []string{"kgent overview", "Memory stores"},
		UpdatedAt: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC),
		Source:    "docs/system/components/kunora-kgent/index.md",
	}
	got := *idx
	got.Content, got.Hash = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("index page\n got %+v\nwant %+v", got, want)
	}
	if !strings.HasPrefix(idx.Content, "# kgent overview") || len(idx.Hash) != 64 {
		t.Fatalf("content %q hash %q", idx.Content, idx.Hash)
	}
}

func TestReadTreeVersionsSlugsStatusesAndTitles(t *testing.T) {
	pages, _ := readTestSite(t, "mapping.yaml")
	old := byPath(pages, "v1.0", "publish/system/components/kunora-kgent/index.md")
	if old == nil || old.URL != "/v1.0/system/components/kunora-kgent/" || old.Title != "kgent overview (v1.0)" {
		t.Fatalf("versioned page = %+v", old)
	}
	if old.ID == pageID("main", old.Path) {
		t.Fatal("the same path in two versions must have two ids")
	}
	mdx := byPath(pages, "main", "publish/system/components/kunora-kgent/memory.mdx")
	if mdx == nil || mdx.URL != "/kgent/agent-memory" || strings.Contains(mdx.Content, "import Tabs") {
		t.Fatalf("mdx page = %+v", mdx)
	}
	if !reflect.DeepEqual(mdx.Headings, []string{"Agent memory", "Eviction"}) {
		t.Fatalf("mdx headings %q: a comment in a code fence is not a heading", mdx.Headings)
	}
	if !mdx.UpdatedAt.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("last_update.date not used: %v", mdx.UpdatedAt)
	}
	draft := byPath(pages, "main", "publish/operations/drafts/capacity.md")
	if draft == nil || draft.Status != "working" || draft.Project != "kunora-ops" {
		t.Fatalf("draft = %+v, want kunora-ops working", draft)
	}
	runbook := byPath(pages, "main", "publish/operations/runbook.md")
	if runbook == nil || runbook.Title != "On-call runbook" || runbook.Status != "approved" {
		t.Fatalf("runbook = %+v, want the title from its heading", runbook)
	}
}

func TestJSONMappingAndURLRules(t *testing.T) {
	pages, _ := readTestSite(t, "mapping.json")
	old := byPath(pages, "v1.0", "publish/system/components/kunora-kgent/index.md")
	if old == nil || old.URL != "/docs/system/components/kunora-kgent/" {
		t.Fatalf("noVersionSegment with base /docs/: %+v", old)
	}
}

func TestHashFollowsEveryVisibleField(t *testing.T) {
	pages, _ := readTestSite(t, "mapping.yaml")
	p := *byPath(pages, "main", "publish/operations/runbook.md")
	before := p.Hash
	p.computeHash()
	if p.Hash != before {
		t.Fatal("hash is not stable")
	}
	p.Status = "working"
	p.computeHash()
	if p.Hash == before {
		t.Fatal("a status change must change the hash")
	}
}

func TestLoadMappingRefusesMistakes(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"unknown key":    "projects: [{id: a, path: x}]\nproject: typo\n",
		"bad status":     "projects: [{id: a, path: x}]\nstatuses: [{path: x, status: draft}]\n",
		"no projects":    "pathPrefix: publish\n",
		"project w/o id": "projects: [{path: x}]\n",
	}
	for name, body := range cases {
		f := filepath.Join(dir, "m.yaml")
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadMapping(f); err == nil {
			t.Errorf("%s: accepted %q", name, body)
		}
	}
}

func TestReadTreeRefusesATreeWithoutPages(t *testing.T) {
	m, _ := LoadMapping(filepath.Join("testdata", "mapping.yaml"))
	if _, _, err := ReadTree(t.TempDir(), m); err == nil || !strings.Contains(err.Error(), "no Markdown or MDX page found (read as a markdown tree)") {
		t.Fatalf("err = %v", err)
	}
	if _, _, _, err := ReadTreeAs(t.TempDir(), m, Docusaurus); err == nil || !strings.Contains(err.Error(), "no docs/ folder") {
		t.Fatalf("as docusaurus: err = %v", err)
	}
}

func TestMappingLanguagesChooseStopWords(t *testing.T) {
	m, err := ParseMapping([]byte("projects: [{id: p, path: ''}]\nlanguages: [zh, en]\n"), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	words := StopWords(m.Languages)
	if words[0] != "的" || !contains(words, "the") {
		t.Fatalf("stop words %v", words)
	}
	if _, err := ParseMapping([]byte("projects: [{id: p, path: ''}]\nlanguages: [fr]\n"), "m.yaml"); err == nil ||
		!strings.Contains(err.Error(), `"fr": want en or zh`) {
		t.Fatalf("an unknown language: %v", err)
	}
	if m, _ := ParseMapping([]byte("projects: [{id: p, path: ''}]\n"), "m.yaml"); !reflect.DeepEqual(m.Languages, []string{"en"}) {
		t.Fatalf("default languages %v", m.Languages)
	}
}
