package wikigatecmd

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/sitemap"
)

// An ingest run records every URL it stored in the mapping's url.table, so
// a page moved by a front matter slug is found by the gate without a
// separate `wikigate project` run; a dry run writes nothing.
func TestIngestWritesTheURLTable(t *testing.T) {
	const key = "ingest-test-master-key"
	meili, err := devmeili.New(devmeili.Config{MasterKey: key})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(meili)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	page := "---\ntitle: Getting started\nslug: /start-here\n---\n\n# Getting started\n\n" +
		"Install the tool, then run it once to create its configuration file in your home folder.\n"
	writeFile(t, filepath.Join(dir, "site", "docs", "guide", "first-steps.md"), page)
	mapFile := filepath.Join(dir, "map.yaml")
	writeFile(t, mapFile, "pathPrefix: publish\nprojects: [{id: guide, path: guide}]\nurl: {base: /docs/, table: urls.json}\n")
	table := filepath.Join(dir, "urls.json")

	ingest := func(extra ...string) {
		t.Helper()
		c := ingestCommand()
		c.SetArgs(append([]string{"--src", filepath.Join(dir, "site"), "--map", mapFile, "--backends", "meilisearch",
			"--meili-url", srv.URL, "--meili-key", key}, extra...))
		if err := c.Execute(); err != nil {
			t.Fatalf("ingest %v: %v", extra, err)
		}
	}
	ingest("--dry-run")
	if _, err := os.Stat(table); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote the url table (%v)", err)
	}
	ingest()
	m, err := sitemap.Load(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	r, missing, err := sitemap.NewResolver(m)
	if err != nil || missing != "" {
		t.Fatalf("the url table after ingest: %q %v", missing, err)
	}
	got, err := r.Resolve("https://docs.example.com/docs/start-here/")
	if err != nil || got.Path != "publish/guide/first-steps.md" {
		t.Fatalf("the slug's URL resolved to %+v (%v), want publish/guide/first-steps.md", got, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
