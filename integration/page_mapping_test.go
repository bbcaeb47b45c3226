package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docusaurusMapping publishes the sample wiki the way a Docusaurus site
// with versions and a French translation does: under /docs/, the current
// version at /docs/next/, the last release (v1.0) at /docs/, translations
// under /fr/. The page with a front matter slug is found through the URL
// table ingest stored (urls.json).
const docusaurusMapping = `pathPrefix: publish
currentVersion: main
projects:
  - {id: kunora-kgent, path: system/components/kunora-kgent}
  - {id: kunora-gateway, path: system/components/kunora-gateway}
  - {id: kunora-ops, path: operations}
url:
  base: /docs/
  versions: {main: next, v1.0: ""}
  locales: [fr]
  table: urls.json
`

const docusaurusURLs = `{"urls": {"/docs/next/get-started": {"path": "publish/system/components/kunora-gateway/authentication.md", "version": "main"}}}`

// TestQuestionsAskedOnRealStyleURLs: a question asked on a page's real URL,
// as a Docusaurus site under /docs/ publishes it, is scoped to that page's
// project, version and section, through the same mapping file ingest
// reads. Before the site mapping, the gate read every URL as
// "publish/" + its path, so none of these was recognised (the first fell
// back to the public default scope, the one under /docs/next/ named a
// version "next" nobody publishes and was refused).
func TestQuestionsAskedOnRealStyleURLs(t *testing.T) {
	dir := t.TempDir()
	mapping := filepath.Join(dir, "wiki-map.yaml")
	if err := os.WriteFile(mapping, []byte(docusaurusMapping), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "urls.json"), []byte(docusaurusURLs), 0o644); err != nil {
		t.Fatal(err)
	}
	g, logFile := loggedGate(t, gateOptions{siteMapping: mapping})
	for url, want := range map[string]string{
		"https://docs.example.com/docs/next/system/components/kunora-kgent/memory": "main:" + kgentPath,
		"/docs/next/system/components/kunora-kgent/":                               "main:" + kgentPath,
		"/docs/system/components/kunora-gateway/routing":                           "v1.0:publish/system/components/kunora-gateway",
		"/fr/docs/next/operations/runbooks/agent-pod-memory":                       "main:publish/operations/runbooks",
		"/docs/next/get-started/":                                                  "main:publish/system/components/kunora-gateway",
	} {
		r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"`+url+`"}}`)
		if got := r.json(t)["audit"].(map[string]any)["scope"]; r.Status != 200 || got != want {
			t.Errorf("page %s: %d, audit scope %v, want %s (%s)", url, r.Status, got, want, r.Body)
		}
	}

	// A URL outside the mapped site keeps the public default scope, and
	// the audit record says why.
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"/blog/2026/release"}}`)
	if r.Status != 200 {
		t.Fatalf("ask on a blog URL: %d %s", r.Status, r.Body)
	}
	if got := r.json(t)["audit"].(map[string]any)["scope"].(string); strings.HasPrefix(got, "main:"+kgentPath) {
		t.Fatalf("a URL outside the site was scoped to a page: %s", got)
	}
	id := r.json(t)["audit"].(map[string]any)["requestId"].(string)
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == id })
	if note, _ := rec["page_note"].(string); !strings.Contains(note, "outside the site mapping's url.base /docs/") {
		t.Fatalf("audit record of a URL outside the site: page_note %q", note)
	}
}
