package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/devbackends/devragflow"
	"github.com/wikigate/wikigate/ingest"
	"github.com/wikigate/wikigate/samplewiki"
)

// A public docs tree of ingest/testdata/trees as an operator loads it:
// its mapping, a page and a question that page answers, and URLs the site
// publishes pages at (the gate must scope a question asked there to the
// page's project).
type gateTree struct {
	name, project, root string
	page, question      string
	urls                map[string]string // page URL -> audit scope
}

var gateTrees = []gateTree{
	{name: "prettier", project: "prettier", root: "publish/prettier",
		page: "publish/prettier/install.md", question: "How do I install Prettier locally with npm?",
		urls: map[string]string{
			"https://prettier.io/docs/next/install": "main:publish/prettier",
			"/docs/next/options":                    "main:publish/prettier",
		}},
	{name: "httpx", project: "httpx", root: "publish/httpx",
		page: "publish/httpx/advanced/authentication.md", question: "How do I use digest authentication?",
		urls: map[string]string{
			"https://www.python-httpx.org/advanced/authentication/": "main:publish/httpx/advanced",
			"/quickstart/": "main:publish/httpx",
		}},
}

// markupRe is markup that must not reach any text the gate returns: an
// HTML or JSX tag, a character reference, an MDX import/export line or
// comment. codeSpans are code, where markup is the code's own.
var (
	markupRe  = regexp.MustCompile(`</?[A-Za-z][\w.:-]*(\s[^<>]*)?/?>|&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);|(?m)^(import|export) [\w{*]|\{/\*`)
	codeSpans = regexp.MustCompile("(?s)`{3,}.*?\\n`{3,}|`+[^`\\n]*`+")
)

// TestRealTreesThroughTheGate loads each public tree into development
// backends, points a gate at them with a policy granting the tree's
// project, and reads everything back the ways a caller can (search,
// get_page, ask as JSON and as an event stream, MCP): no markup reaches
// any text, and a question asked on a page's published URL is scoped to
// that page's project.
func TestRealTreesThroughTheGate(t *testing.T) {
	for _, tree := range gateTrees {
		t.Run(tree.name, func(t *testing.T) {
			g, allowed := gateOverTree(t, tree)
			tok := bearer(agentToken(t, "docs-reader-agent"))
			var texts []string
			search := g.post("/agent/tools/search", tok, `{"question":`+quote(tree.question)+`}`)
			get := g.post("/agent/tools/get_page", tok, `{"path":`+quote(tree.page)+`}`)
			ask := g.post("/agent/tools/ask", tok, `{"question":`+quote(tree.question)+`}`)
			for name, r := range map[string]response{"search": search, "get_page": get, "ask": ask} {
				if r.Status != 200 {
					t.Fatalf("%s: %d %s", name, r.Status, r.Body)
				}
				texts = append(texts, stringsIn(r.json(t))...)
			}
			if !strings.Contains(string(get.Body), `"content"`) || !strings.Contains(string(ask.Body), tree.page) {
				t.Fatalf("get_page %s / ask %s: the page was not served or cited", get.Body, ask.Body)
			}
			texts = append(texts, streamedTexts(t, g, tok, tree.question)...)
			texts = append(texts, mcpTexts(t, g, tree)...)
			t.Logf("%d texts checked", len(texts))
			for _, s := range texts {
				if bad := markupOutsideCode(s, allowed); bad != "" {
					t.Errorf("markup %q in %q", bad, clip(s))
				}
			}
			for url, want := range tree.urls {
				r := g.post("/answer/ask", nil, `{"question":`+quote(tree.question)+`,"page":{"url":`+quote(url)+`}}`)
				if got := r.json(t)["audit"].(map[string]any)["scope"]; r.Status != 200 || got != want {
					t.Errorf("asked on %s: %d, scope %v, want %s", url, r.Status, got, want)
				}
			}
		})
	}
}

// gateOverTree loads the tree into fresh development backends and starts
// a gate on them whose policy grants the tree's project to
// docs-reader-agent and to the public; it returns the gate and the tags
// the tree writes escaped (text, once decoded).
func gateOverTree(t *testing.T, tree gateTree) (*gate, map[string]bool) {
	t.Helper()
	meili, err := devmeili.New(devmeili.Config{MasterKey: meiliKey})
	if err != nil {
		t.Fatal(err)
	}
	rag, err := devragflow.New(devragflow.Config{APIKey: ragflowKey, Corpus: &samplewiki.Corpus{}})
	if err != nil {
		t.Fatal(err)
	}
	meiliSrv, ragSrv := httptest.NewServer(meili), httptest.NewServer(rag)
	t.Cleanup(meiliSrv.Close)
	t.Cleanup(ragSrv.Close)
	src := filepath.Join("..", "ingest", "testdata", "trees", tree.name)
	mapping, err := filepath.Abs(src + ".map.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.LoadMapping(mapping)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ingest.Run(ctx, ingest.Options{Src: src, Mapping: m,
		Meili: &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: meiliSrv.URL, Key: meiliKey, PollEvery: time.Millisecond},
			Index: "wiki_pages", Projects: m.ProjectIDs()},
		RAGFlow: &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: ragSrv.URL, Key: ragflowKey, PollEvery: time.Millisecond},
			Mapping: m},
	})
	if err != nil || res.Failed() != 0 {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	policy := copyDir(t, filepath.Join("..", "rego"))
	grantTree(t, filepath.Join(policy, "data.json"), tree, res.Catalog)
	g := startGate(t, gateOptions{policyDir: policy, meiliURL: meiliSrv.URL, ragflowURL: ragSrv.URL,
		siteMapping: mapping, extraOptions: mcpBlock})
	return g, escapedIn(t, src)
}

// grantTree adds the tree's project to the policy data: its datasets (the
// catalog ingest returned), an agent granted it, and the public projects.
func grantTree(t *testing.T, file string, tree gateTree, cat *ingest.Catalog) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	datasets := data["catalog"].(map[string]any)["datasets"].(map[string]any)
	datasets[tree.project] = cat.Datasets[tree.project]
	data["agents"].(map[string]any)["docs-reader-agent"] = map[string]any{
		"disabled": false, "tools": []string{"search", "ask", "get_page", "get_context"}, "write_tools": []string{},
		"grants": map[string]any{tree.project: map[string]any{"paths": []string{tree.root}, "versions": []string{"main"}, "working_docs": false}},
	}
	public := data["humans"].(map[string]any)["public"].(map[string]any)
	public["projects"] = append(public["projects"].([]any), map[string]any{"id": tree.project, "root": tree.root})
	out, _ := json.MarshalIndent(data, "", "  ")
	writeFile(t, file, string(out))
}

// streamedTexts asks as an event stream and returns every string of every event.
func streamedTexts(t *testing.T, g *gate, tok map[string]string, question string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := g.streamAsk(ctx, "/agent/tools/ask", tok, `{"question":`+quote(question)+`}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	events := 0
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			events++
			var v any
			if json.Unmarshal([]byte(strings.TrimSpace(data)), &v) == nil {
				out = append(out, stringsIn(v)...)
			}
		}
	}
	if events == 0 {
		t.Fatal("the stream had no event")
	}
	return out
}

// mcpTexts calls search, get_page and ask over MCP and returns every
// string of their results.
func mcpTexts(t *testing.T, g *gate, tree gateTree) []string {
	t.Helper()
	cs := mcpConnect(t, g, agentToken(t, "docs-reader-agent"), "", nil)
	var out []string
	for tool, args := range map[string]any{
		"search":   map[string]any{"question": tree.question},
		"get_page": map[string]any{"path": tree.page},
		"ask":      map[string]any{"question": tree.question},
	} {
		res := mcpCall(t, cs, tool, args)
		if res.IsError {
			t.Fatalf("mcp %s: %s", tool, toolErrorCode(t, res))
		}
		var v any
		structured(t, res, &v)
		out = append(out, stringsIn(v)...)
		for _, c := range res.Content {
			raw, _ := json.Marshal(c)
			var cv any
			_ = json.Unmarshal(raw, &cv)
			out = append(out, stringsIn(cv)...)
		}
	}
	return out
}

// stringsIn lists every string in a decoded JSON value.
func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, stringsIn(x)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, x := range v {
			out = append(out, stringsIn(x)...)
		}
		return out
	}
	return nil
}

// markupOutsideCode is the first markup in s outside code, but for tags
// the tree wrote escaped.
func markupOutsideCode(s string, allowed map[string]bool) string {
	if strings.HasPrefix(strings.TrimSpace(s), "{") { // a JSON text (MCP's text content): its strings are checked too
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			for _, x := range stringsIn(v) {
				if bad := markupOutsideCode(x, allowed); bad != "" {
					return bad
				}
			}
			return ""
		}
	}
	for _, block := range strings.Split(codeSpans.ReplaceAllString(s, ""), "\n\n") {
		for _, m := range markupRe.FindAllString(block, -1) {
			if !allowed[m] && !allowed[strings.TrimSuffix(m, "…")] {
				return m
			}
		}
	}
	return ""
}

// escapedIn collects the tags the tree writes as text: &lt;x&gt; in its
// files, and anything inside its code (a snippet may cut a code span).
func escapedIn(t *testing.T, dir string) map[string]bool {
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
		for _, code := range codeSpans.FindAllString(string(raw), -1) {
			for _, m := range markupRe.FindAllString(code, -1) {
				out[m] = true
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func quote(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
