package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/ingest"
)

const testMasterKey = "ingest-test-master-key"

// copyTree copies the test site so a test can edit and delete pages.
func copyTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "site")))
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func runMeili(t *testing.T, url, src string, dry bool) *ingest.Report {
	t.Helper()
	m, pages, fails := readTestTree(t, src)
	s := &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: url, Key: testMasterKey, PollEvery: time.Millisecond},
		Index: "ingest_test", Projects: m.ProjectIDs(), BatchSize: 2, DryRun: dry, Languages: m.Languages}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := s.Run(ctx, pages, fails)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 0 {
		t.Fatalf("write failures: %+v", rep.Failures)
	}
	return rep
}

// search asks the dev Meilisearch, as the gate would, for q in the index.
func search(t *testing.T, url, q string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"q": q, "filter": `project IN ["kunora-kgent", "kunora-ops"]`})
	req, _ := http.NewRequest(http.MethodPost, url+"/indexes/ingest_test/search", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp := send(t, req, testMasterKey)
	defer resp.Body.Close()
	var out struct {
		Hits []map[string]any `json:"hits"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("search %q: status %d", q, resp.StatusCode)
	}
	return out.Hits
}

// meiliGet sends GET url to the dev Meilisearch with the master key.
func meiliGet(t *testing.T, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	return send(t, req, testMasterKey)
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp := meiliGet(t, url)
	resp.Body.Close()
	return resp.StatusCode
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp := meiliGet(t, url)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(out) != nil {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestMeiliIngestIsIncrementalEndToEnd(t *testing.T) {
	srv := devMeili(t)
	src := copyTree(t)

	if dry := runMeili(t, srv.URL, src, true); len(dry.Added) != 5 || dry.Changes() != 5 {
		t.Fatalf("dry run: %+v", dry)
	}
	if code := getStatus(t, srv.URL+"/indexes/ingest_test"); code != http.StatusNotFound {
		t.Fatalf("after a dry run the index answers %d, want 404: nothing written", code)
	}
	first := runMeili(t, srv.URL, src, false)
	if len(first.Added) != 5 || first.Changes() != 5 {
		t.Fatalf("first run: %+v", first)
	}
	var settings struct {
		Filterable []string `json:"filterableAttributes"`
		StopWords  []string `json:"stopWords"`
	}
	getJSON(t, srv.URL+"/indexes/ingest_test/settings", &settings)
	for _, attr := range []string{"project", "version", "status", "path", "pathPrefixes"} {
		if !contains(settings.Filterable, attr) {
			t.Fatalf("settings not applied: filterable %v lacks %s", settings.Filterable, attr)
		}
	}
	if !contains(settings.StopWords, "the") || !contains(settings.StopWords, "什么") {
		t.Fatalf("stop words not applied: %v", settings.StopWords)
	}
	if second := runMeili(t, srv.URL, src, false); second.Changes() != 0 || second.Unchanged != 5 {
		t.Fatalf("second run changed something: %+v", second)
	}

	editRunbook(t, src)
	edited := runMeili(t, srv.URL, src, false)
	if !reflect.DeepEqual(edited.Changed, []string{"publish/operations/runbook.md (main)"}) || edited.Changes() != 1 {
		t.Fatalf("after one edit: %+v", edited)
	}
	if err := os.Remove(filepath.Join(src, "docs", "operations", "drafts", "capacity.md")); err != nil {
		t.Fatal(err)
	}
	removed := runMeili(t, srv.URL, src, false)
	if !reflect.DeepEqual(removed.Removed, []string{"publish/operations/drafts/capacity.md (main)"}) || removed.Changes() != 1 {
		t.Fatalf("after one delete: %+v", removed)
	}

	hits := search(t, srv.URL, "zeppelin desk")
	if len(hits) != 1 || hits[0]["path"] != "publish/operations/runbook.md" || !strings.Contains(hits[0]["content"].(string), "zeppelin") {
		t.Fatalf("edited content not found: %v", hits)
	}
	if hits := search(t, srv.URL, "capacity quarter"); len(hits) != 0 {
		t.Fatalf("removed page still found: %v", hits)
	}
	if hits := search(t, srv.URL, "orbital kettle"); len(hits) != 1 || hits[0]["url"] != "/system/components/kunora-kgent/" {
		t.Fatalf("untouched page: %v", hits)
	}
}

// TestIngestOfTheSampleTreeFindsTheDevMeilisearchUpToDate: the development
// Meilisearch starts with samplewiki/site as ingest reads it, hashes
// included, so loading that tree into it changes nothing.
func TestIngestOfTheSampleTreeFindsTheDevMeilisearchUpToDate(t *testing.T) {
	srv := devMeili(t)
	m, pages, fails := readSampleTree(t)
	if len(fails) != 0 {
		t.Fatalf("failures %v", fails)
	}
	s := &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: srv.URL, Key: testMasterKey, PollEvery: time.Millisecond},
		Index: "wiki_pages", Projects: m.ProjectIDs()}
	rep, err := s.Run(context.Background(), pages, nil)
	if err != nil || rep.Changes() != 0 || rep.Unchanged != 37 {
		t.Fatalf("report %+v, err %v", rep, err)
	}
}

func TestMeiliRebuildSwapsInAFullIndex(t *testing.T) {
	srv := devMeili(t)
	src := copyTree(t)
	runMeili(t, srv.URL, src, false)
	editRunbook(t, src)
	m, pages, _ := readTestTree(t, src)
	s := &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: srv.URL, Key: testMasterKey, PollEvery: time.Millisecond},
		Index: "ingest_test", Projects: m.ProjectIDs(), Rebuild: true}
	rep, err := s.Run(context.Background(), pages, nil)
	if err != nil || !reflect.DeepEqual(rep.Changed, []string{"publish/operations/runbook.md (main)"}) ||
		!strings.HasPrefix(rep.RebuiltVia, "ingest_test_rebuild_") {
		t.Fatalf("rebuild: %+v, %v", rep, err)
	}
	if code := getStatus(t, srv.URL+"/indexes/"+rep.RebuiltVia); code != http.StatusNotFound {
		t.Fatalf("the rebuild index answers %d after the swap, want 404 (deleted)", code)
	}
	if hits := search(t, srv.URL, "zeppelin desk"); len(hits) != 1 {
		t.Fatalf("the swapped-in index lacks the edit: %v", hits)
	}
	if hits := search(t, srv.URL, "orbital kettle"); len(hits) != 1 {
		t.Fatalf("the swapped-in index lacks an unchanged page: %v", hits)
	}
	var settings struct {
		Filterable []string `json:"filterableAttributes"`
	}
	getJSON(t, srv.URL+"/indexes/ingest_test/settings", &settings)
	if !contains(settings.Filterable, "pathPrefixes") {
		t.Fatalf("the swapped-in index lacks the settings: %v", settings.Filterable)
	}
	s.Projects = []string{"kunora-kgent"} // kunora-ops pages are now someone else's
	if _, err := s.Run(context.Background(), pages, nil); err == nil || !strings.Contains(err.Error(), "would drop them") {
		t.Fatalf("a rebuild over other projects' pages: %v", err)
	}
}
