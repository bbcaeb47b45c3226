package integration

import (
	"strings"
	"testing"

	"github.com/wikigate/wikigate/samplewiki"
)

const kgentPath = "publish/system/components/kunora-kgent"

// pageStatus looks a page up in the sample wiki, so tests can check what the
// gate returned against what the corpus holds.
func pageStatus(t *testing.T, version, path string) string {
	t.Helper()
	c, err := samplewiki.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Pages {
		if p.Version == version && p.Path == path {
			return p.Status
		}
	}
	t.Fatalf("page %s@%s is not in the sample wiki", path, version)
	return ""
}

func TestSearchStaysInsideTheGrant(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory","limit":50}`)
	if r.Status != 200 {
		t.Fatalf("search: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	hits := body["hits"].([]any)
	if len(hits) == 0 {
		t.Fatal("no hits for agent memory in the agent's own project")
	}
	for _, h := range hits {
		hit := h.(map[string]any)
		path := hit["path"].(string)
		if !strings.HasPrefix(path, kgentPath+"/") {
			t.Errorf("hit outside the grant: %s", path)
		}
		if hit["version"] != "main" || hit["sourceProject"] != "kunora-kgent" {
			t.Errorf("hit with wrong version/project: %v", hit)
		}
		if st := pageStatus(t, "main", path); st != "approved" {
			t.Errorf("hit %s is a %s doc", path, st)
		}
		if hit["url"] == "" || hit["title"] == "" || hit["snippet"] == "" {
			t.Errorf("hit lacks url/title/snippet: %v", hit)
		}
	}
	audit := body["audit"].(map[string]any)
	if audit["requestId"] != r.Header.Get("X-Request-Id") || audit["caller"] != "kunora-coding-agent" {
		t.Errorf("audit block %v does not match X-Request-Id %q", audit, r.Header.Get("X-Request-Id"))
	}
}

func TestMaintainerSeesTheExtrasPagesTheCodingAgentCannot(t *testing.T) {
	g := startGate(t, gateOptions{})
	body := `{"question":"agent memory","limit":50,"scope":{"projects":["kunora-kgent"]}}`
	r := g.post("/agent/tools/search", bearer(agentToken(t, "docs-maintainer-agent")), body)
	if r.Status != 200 {
		t.Fatalf("search: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(string(r.Body), "kunora-kgent-extras/") {
		t.Fatal("the -extras trap pages should be visible to a caller granted them; the test corpus lost them?")
	}
}

func TestGetPage(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))

	r := g.post("/agent/tools/get_page", tok, `{"path":"`+kgentPath+`/index.md"}`)
	if r.Status != 200 {
		t.Fatalf("get_page: %d %s", r.Status, r.Body)
	}
	pages := r.json(t)["pages"].([]any)
	if len(pages) != 1 {
		t.Fatalf("want one page, got %s", r.Body)
	}
	page := pages[0].(map[string]any)
	if page["path"] != kgentPath+"/index.md" || page["content"] == "" || page["url"] != "/system/components/kunora-kgent/" {
		t.Fatalf("page: %v", page)
	}

	batch := `{"paths":["` + kgentPath + `/index.md","` + kgentPath + `/no-such-page.md"]}`
	r = g.post("/agent/tools/get_page", tok, batch)
	body := r.json(t)
	if r.Status != 200 || len(body["pages"].([]any)) != 1 {
		t.Fatalf("batch: %d %s", r.Status, r.Body)
	}
	errs := body["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["path"] != kgentPath+"/no-such-page.md" || errs[0].(map[string]any)["code"] != "not_found" {
		t.Fatalf("batch errors: %v", errs)
	}
}

func TestGetPageHidesWorkingDocsFromAnAgentWithoutTheGrant(t *testing.T) {
	g := startGate(t, gateOptions{})
	working := workingPage(t)
	r := g.post("/agent/tools/get_page", bearer(agentToken(t, "kunora-coding-agent")), `{"path":"`+working+`"}`)
	body := r.json(t)
	if r.Status != 200 || len(body["pages"].([]any)) != 0 || len(body["errors"].([]any)) != 1 {
		t.Fatalf("working doc leaked or wrong shape: %d %s", r.Status, r.Body)
	}
	r = g.post("/agent/tools/get_page", bearer(agentToken(t, "docs-maintainer-agent")),
		`{"path":"`+working+`","scope":{"projects":["kunora-kgent"],"includeWorkingDocs":true}}`)
	if r.Status != 200 || len(r.json(t)["pages"].([]any)) != 1 {
		t.Fatalf("maintainer with working docs should read it: %d %s", r.Status, r.Body)
	}
}

// workingPage finds a working doc of kunora-kgent main in the sample wiki.
func workingPage(t *testing.T) string {
	c, err := samplewiki.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Pages {
		if p.Project == "kunora-kgent" && p.Version == "main" && p.Status == "working" && strings.HasPrefix(p.Path, kgentPath+"/") {
			return p.Path
		}
	}
	t.Fatal("sample wiki has no kunora-kgent working doc")
	return ""
}
