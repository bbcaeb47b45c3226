package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/wikigate/wikigate/ingest"
)

var timeIn2030 = time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)

// backends is one development Meilisearch and one development RAGFlow.
type backends struct{ meili, ragflow string }

func startBackends(t *testing.T) backends {
	t.Helper()
	return backends{meili: devMeili(t).URL, ragflow: emptyRAGFlow(t).URL}
}

// load runs ingest over src with the mapping file into both backends and
// returns the two reports, Meilisearch's first.
func (b backends) load(t *testing.T, mapping, src string) (*ingest.Report, *ingest.Report) {
	t.Helper()
	m, err := ingest.LoadMapping(mapping)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := ingest.Run(ctx, ingest.Options{Src: src, Mapping: m,
		Meili: &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: b.meili, Key: testMasterKey, PollEvery: time.Millisecond},
			Index: "identity_test", Projects: m.ProjectIDs(), Languages: m.Languages},
		RAGFlow: &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: b.ragflow, Key: testRAGFlowKey, PollEvery: time.Millisecond},
			Mapping: m, Concurrency: 2},
	})
	if err != nil || len(res.Reports) != 2 {
		t.Fatalf("ingest of %s: %v %+v", src, err, res)
	}
	for _, rep := range res.Reports {
		if len(rep.Failures) != 0 {
			t.Fatalf("%s failures: %+v", rep.Backend, rep.Failures)
		}
	}
	return res.Reports[0], res.Reports[1]
}

// wantChanged fails unless both reports changed exactly the pages named
// (and added and removed none).
func wantChanged(t *testing.T, what string, reps [2]*ingest.Report, changed ...string) {
	t.Helper()
	for _, rep := range reps {
		got := slices.Sorted(slices.Values(rep.Changed))
		if len(rep.Added) != 0 || len(rep.Removed) != 0 || !reflect.DeepEqual(got, changed) {
			t.Fatalf("%s: %s added %v changed %v removed %v, want changed %v only",
				what, rep.Backend, rep.Added, rep.Changed, rep.Removed, changed)
		}
	}
}

func both(a, b *ingest.Report) [2]*ingest.Report { return [2]*ingest.Report{a, b} }

// TestAPageIsTheSameOnEveryCopyOfTheTree: the content hash covers what the
// gate reads, never file times, so a clone, an archive, a copy or a touch
// of the same commit changes nothing in either backend, and a commit that
// edits two pages changes exactly those two.
func TestAPageIsTheSameOnEveryCopyOfTheTree(t *testing.T) {
	mapping := filepath.Join("testdata", "mapping.yaml")
	site := copyTree(t)
	if err := os.Remove(filepath.Join(site, "docs", "orphan.md")); err != nil { // a page that fails on purpose
		t.Fatal(err)
	}
	repo := gitRepoOf(t, site, "2026-02-03T04:05:06Z")
	b := startBackends(t)
	meili, rag := b.load(t, mapping, repo)
	if len(meili.Added) != 5 || len(rag.Added) != 5 {
		t.Fatalf("first load: %+v %+v", meili, rag)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	git(t, repo, "2026-03-01T00:00:00Z", "clone", "-q", repo, clone)
	wantChanged(t, "a fresh clone", both(b.load(t, mapping, clone)))
	wantChanged(t, "a git archive", both(b.load(t, mapping, exportOf(t, repo))))
	cp := t.TempDir()
	if err := os.CopyFS(cp, os.DirFS(repo)); err != nil {
		t.Fatal(err)
	}
	wantChanged(t, "a copy", both(b.load(t, mapping, cp)))
	touchAll(t, repo)
	wantChanged(t, "a touch", both(b.load(t, mapping, repo)))

	for _, page := range []string{"docs/operations/runbook.md", "docs/system/components/kunora-kgent/index.md"} {
		f := filepath.Join(repo, filepath.FromSlash(page))
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, append(raw, "\nA sentence added in review.\n"...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "2026-04-01T00:00:00Z", "commit", "-q", "-am", "two pages")
	wantChanged(t, "a commit of two pages", both(b.load(t, mapping, repo)),
		"publish/operations/runbook.md (main)", "publish/system/components/kunora-kgent/index.md (main)")
	wantChanged(t, "the same commit again", both(b.load(t, mapping, clone)), // the clone is one commit behind
		"publish/operations/runbook.md (main)", "publish/system/components/kunora-kgent/index.md (main)")
}
