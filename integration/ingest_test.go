package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/ingest"
)

// loadTree runs `wikigate ingest`'s code against the gate's development
// backends, as docs/ingest.md's "Loading your wiki" does with the binary.
func loadTree(t *testing.T, g *gate, src string) *ingest.Result {
	t.Helper()
	m, err := ingest.LoadMapping(filepath.Join("..", "samplewiki", "wiki-map.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := ingest.Run(ctx, ingest.Options{Src: src, Mapping: m,
		Meili: &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: g.meiliURL, Key: meiliKey, PollEvery: time.Millisecond},
			Index: "wiki_pages", Projects: m.ProjectIDs()},
		RAGFlow: &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: g.ragURL, Key: ragflowKey, PollEvery: time.Millisecond},
			Mapping: m},
	})
	if err != nil || res.Failed() != 0 {
		t.Fatalf("ingest: %v, %+v", err, res)
	}
	return res
}

// changedEverywhere asserts both backends report exactly want as changed
// and removed lists, and nothing added.
func changedEverywhere(t *testing.T, res *ingest.Result, changed, removed []string) {
	t.Helper()
	for _, rep := range res.Reports {
		if !reflect.DeepEqual(rep.Changed, changed) || !reflect.DeepEqual(rep.Removed, removed) || len(rep.Added) != 0 {
			t.Fatalf("%s: %+v, want changed %v removed %v", rep.Backend, rep, changed, removed)
		}
	}
	if len(res.Reports) != 2 {
		t.Fatalf("%d reports, want meilisearch and ragflow", len(res.Reports))
	}
}

func stringify(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func TestIngestedEditsReachTheGatesAnswers(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	site := t.TempDir()
	if err := os.CopyFS(site, os.DirFS(filepath.Join("..", "samplewiki", "site"))); err != nil {
		t.Fatal(err)
	}
	changedEverywhere(t, loadTree(t, g, site), nil, nil)

	page := filepath.Join(site, "docs", "system", "components", "kunora-kgent", "index.md")
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	edit := "\n## Memory quota\n\nThe zeppelin budget caps how much memory one agent may keep.\n"
	if err := os.WriteFile(page, append(raw, edit...), 0o600); err != nil {
		t.Fatal(err)
	}
	const path = "publish/system/components/kunora-kgent/index.md"
	changedEverywhere(t, loadTree(t, g, site), []string{path + " (main)"}, nil)
	changedEverywhere(t, loadTree(t, g, site), nil, nil)

	search := g.post("/agent/tools/search", tok, `{"question":"zeppelin budget"}`)
	if search.Status != 200 || !strings.Contains(string(search.Body), "The zeppelin budget caps") {
		t.Fatalf("search: %d %s", search.Status, search.Body)
	}
	ask := g.post("/agent/tools/ask", tok, `{"question":"What caps how much memory one agent may keep?"}`).json(t)
	cites, _ := ask["citations"].([]any)
	if !strings.Contains(ask["answer"].(string), "zeppelin budget") || len(cites) == 0 ||
		cites[0].(map[string]any)["path"] != path || cites[0].(map[string]any)["anchor"] != "memory-quota" {
		t.Fatalf("answer: %v", ask)
	}

	gone := filepath.Join(site, "docs", "system", "components", "kunora-kgent", "tools.md")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	changedEverywhere(t, loadTree(t, g, site), nil, []string{"publish/system/components/kunora-kgent/tools.md (main)"})
	got := g.post("/agent/tools/get_page", tok, `{"path":"publish/system/components/kunora-kgent/tools.md"}`).json(t)
	if pages, _ := got["pages"].([]any); len(pages) != 0 || !strings.Contains(stringify(got["errors"]), "not_found") {
		t.Fatalf("a removed page is still served: %v", got)
	}
}
