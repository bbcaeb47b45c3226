package ingest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/ingest"
)

// TestRealTreesLoadIncrementally loads each public docs tree of
// testdata/trees into the development backends, from a git repository of
// it: a re-run, a fresh clone and a touched copy change nothing, a commit
// of two edited pages changes exactly those two in each backend.
func TestRealTreesLoadIncrementally(t *testing.T) {
	for _, tree := range realTrees {
		t.Run(tree.name, func(t *testing.T) {
			repo := gitRepoOf(t, tree.dir(), "2026-02-03T04:05:06Z")
			b := startBackends(t)
			meili, rag := b.load(t, tree.mapping(), repo)
			if len(meili.Added) != tree.pages || len(rag.Added) != tree.pages {
				t.Fatalf("first load added %d and %d pages, want %d", len(meili.Added), len(rag.Added), tree.pages)
			}
			wantChanged(t, "a re-run", both(b.load(t, tree.mapping(), repo)))
			clone := filepath.Join(t.TempDir(), "clone")
			git(t, repo, "2026-03-01T00:00:00Z", "clone", "-q", repo, clone)
			wantChanged(t, "a fresh clone", both(b.load(t, tree.mapping(), clone)))
			touchAll(t, clone)
			wantChanged(t, "a touched copy", both(b.load(t, tree.mapping(), clone)))

			for _, f := range tree.edits {
				path := filepath.Join(repo, filepath.FromSlash(f))
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(raw, "\nOne more paragraph, added in review.\n"...), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			git(t, repo, "2026-04-01T00:00:00Z", "commit", "-q", "-am", "two pages")
			wantChanged(t, "a commit of two pages", both(b.load(t, tree.mapping(), repo)), tree.edited[0], tree.edited[1])
		})
	}
}

// TestRealTreesRankTheExpectedPageFirst asks each tree ten questions
// written from its pages, as the gate searches (its project's filter),
// and wants the page that answers first.
func TestRealTreesRankTheExpectedPageFirst(t *testing.T) {
	for _, tree := range realTrees {
		t.Run(tree.name, func(t *testing.T) {
			b := startBackends(t)
			b.load(t, tree.mapping(), tree.dir())
			if len(tree.questions) < 10 {
				t.Fatalf("%d questions, want 10", len(tree.questions))
			}
			for _, q := range tree.questions {
				hits := searchIndex(t, b.meili, "identity_test", tree.project, q.q)
				if len(hits) == 0 || hits[0]["path"] != q.page {
					var got []any
					for _, h := range hits {
						got = append(got, h["path"])
					}
					t.Errorf("%q ranked %v, want %s first", q.q, got, q.page)
				}
			}
		})
	}
}

// markup is what must not reach a page's text outside code: an HTML or
// JSX tag, a character reference, an MDX import/export line or comment.
var markup = regexp.MustCompile(`</?[A-Za-z][\w.:-]*(\s[^<>]*)?/?>|&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);|(?m)^(import|export) |\{/\*`)

// codeRe is code in the page text: fenced blocks and code spans.
var codeRe = regexp.MustCompile("(?s)(`{3,}).*?\\n`{3,}|`+[^`\\n]*`+")

// escapedTags are the tags a tree writes as text (&lt;name&gt; or in
// code): decoded, they are the author's words, not markup.
func escapedTags(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	escaped := regexp.MustCompile(`&lt;([^&\s]{1,60})&gt;`)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		for _, m := range escaped.FindAllStringSubmatch(string(raw), -1) {
			out["<"+m[1]+">"] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// markupIn lists the markup in text outside code, but for the tags the
// tree wrote escaped.
func markupIn(text string, allowed map[string]bool) []string {
	var out []string
	for _, block := range strings.Split(codeRe.ReplaceAllString(text, ""), "\n\n") {
		for _, m := range markup.FindAllString(block, -1) {
			if !allowed[m] {
				out = append(out, m)
			}
		}
	}
	return out
}

// TestRealTreesPagesCarryNoMarkup: every page of both trees, as ingest
// sends it to the backends, is text: no tag, entity or MDX line outside
// code, and titles and headings have none either.
func TestRealTreesPagesCarryNoMarkup(t *testing.T) {
	for _, tree := range realTrees {
		m, err := ingest.LoadMapping(tree.mapping())
		if err != nil {
			t.Fatal(err)
		}
		pages, fails, err := ingest.ReadTree(tree.dir(), m)
		if err != nil || len(fails) != 0 || len(pages) != tree.pages {
			t.Fatalf("%s: %d pages, %v %v", tree.name, len(pages), fails, err)
		}
		allowed := escapedTags(t, tree.dir())
		for _, p := range pages {
			if bad := markupIn(p.Content+"\n\n"+p.Title+"\n\n"+strings.Join(p.Headings, "\n\n"), allowed); len(bad) != 0 {
				t.Errorf("%s: markup %q", p.Path, bad)
			}
		}
	}
}

// searchIndex searches the dev Meilisearch's index within one project.
func searchIndex(t *testing.T, url, index, project, q string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"q": q, "filter": "project = " + project, "limit": 5})
	req, _ := http.NewRequest(http.MethodPost, url+"/indexes/"+index+"/search", bytes.NewReader(body))
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
