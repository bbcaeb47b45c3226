package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A RAGFlow and a Meilisearch whose documents were edited by someone who
// wants to run code on the docs site (docs/docs-sites.md "Safe URLs and the
// widget's Content-Security-Policy"): urls with javascript:, data:, vbscript:,
// protocol-relative and obfuscated schemes, titles and crops carrying
// <img onerror> and <script>. Every planted script sets a window flag
// named __wg…, so a page that ran one is caught; a planted URL names
// evil.example or sets __wgURL.
var plantedURLs = []string{
	"javascript:window.__wgURL=1",
	"data:text/html,<script>window.__wgURL=1</script>",
	"//evil.example/x",
	"java\tscript:window.__wgURL=1",
	"vbscript:window.__wgURL=1",
	"&#106;avascript:window.__wgURL=1",
}

// plantedSafeURL is the one honest url: its item must keep it.
const plantedSafeURL = "/system/components/kunora-kgent/memory/"

// plantedTitle carries markup whose script would set window.__wgTitle.
func plantedTitle(i int) string {
	return fmt.Sprintf(`Memory %d <img src=x onerror=window.__wgTitle=%d><script>window.__wgTitle=%d</script>`, i, i, i)
}

// plantedSentences are the chunks' texts, each followed by markup; the
// stand-in's answer repeats them, markup and all, as a model copying its
// sources would (the widget must show it as text), citing its chunk.
var plantedSentences = []string{
	"Agent memory keeps a sliding window of the most recent conversation turns",
	"Older conversation turns are summarised before they leave the memory window",
	"The Redis memory backend shares one memory between every agent replica",
	"Memory entries expire after the configured time to live in Redis",
	"The window size is set with the memory window option in the agent configuration",
	"A restart of the agent keeps the memory when the Redis backend is used",
	"The in-process memory backend loses the memory on every restart of the agent",
}

// plantedRAGFlow answers retrieval with one chunk per planted url and one
// with plantedSafeURL, all inside the kunora-kgent grant, titles and
// document names with markup; the completion cites every chunk.
func plantedRAGFlow(t *testing.T) string {
	var chunks, answer []string
	urls := append(append([]string{}, plantedURLs...), plantedSafeURL)
	for i, u := range urls {
		meta, _ := json.Marshal(map[string]string{
			"path": fmt.Sprintf("%s/planted-%d.md", kgentPath, i), "url": u, "title": plantedTitle(i),
			"project": "kunora-kgent", "version": "main", "status": "approved",
		})
		text := fmt.Sprintf("%s <img src=x onerror=window.__wgAnswer=%d>", plantedSentences[i], i)
		chunks = append(chunks, fmt.Sprintf(`{"id":"planted-%d","content":%q,"document_id":"d-%d","document_keyword":%q,
		  "dataset_id":%q,"similarity":0.9,"vector_similarity":0.9,"term_similarity":0.9,"positions":[],"document_metadata":%s}`,
			i, text+".", i, plantedTitle(i), kgentMainApproved, meta))
		answer = append(answer, fmt.Sprintf("%s [ID:%d].", text, i))
	}
	return fakeRAGFlow(t,
		writeString(`{"code":0,"data":{"chunks":[`+strings.Join(chunks, ",")+`],"doc_aggs":[],"total":7}}`),
		completion(strings.Join(answer, " ")))
}

// plantedHit is one Meilisearch document of the kunora-kgent grant with
// url u, a title with markup, a crop with markup (_formatted, returned
// whether asked or not) and content whose own HTML is the page's source.
func plantedHit(i int, u string) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("planted-%d", i), "path": fmt.Sprintf("%s/planted-%d.md", kgentPath, i), "url": u,
		"title": plantedTitle(i), "project": "kunora-kgent", "version": "main", "status": "approved",
		"headings": []string{"Memory"}, "_rankingScore": 0.9,
		"content": fmt.Sprintf("<script>window.__wgContent=%d</script> %s.", i, plantedSentences[i]),
		"_formatted": map[string]any{
			"title": fmt.Sprintf("<em>Memory</em> %d <img src=x onerror=window.__wgTitle=%d>", i, i),
			"content": fmt.Sprintf("…<img src=x onerror=window.__wgCrop=%d> agent <em>memory</em> keeps a window <script>window.__wgCrop=%d</script> <img src=x onerror=window.__wgCrop=%d",
				i, i, i),
		},
	}
}

// plantedMeili answers every search, whatever its filter, with one
// planted hit per url and one with plantedSafeURL.
func plantedMeili(t *testing.T) string {
	var hits []map[string]any
	for i, u := range append(append([]string{}, plantedURLs...), plantedSafeURL) {
		hits = append(hits, plantedHit(i, u))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/health":
			_, _ = w.Write([]byte(`{"status":"available"}`))
		case "/indexes/wiki_pages/search":
			_ = json.NewEncoder(w).Encode(map[string]any{"hits": hits, "query": "memory", "processingTimeMs": 1,
				"limit": 20, "offset": 0, "estimatedTotalHits": len(hits)})
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// plantedMarkers are what must never reach a caller: the planted urls
// (by what they point at) and the scripts of titles and crops. A page's
// content (get_page, get_context, the Meilisearch hit's content field) is
// its source and keeps its own HTML (__wgContent); an answer is the
// model's markdown and keeps the markup it copied (__wgAnswer): clients
// render both as text, as the widget does.
var plantedMarkers = regexp.MustCompile(`(?i)javascript|vbscript|data:text|evil\.example|__wgURL|__wgTitle|__wgCrop|&#106;`)

func assertNothingPlanted(t *testing.T, what string, body []byte) {
	t.Helper()
	if m := plantedMarkers.FindAll(body, -1); len(m) > 0 {
		t.Errorf("%s: planted %q reached the caller: %s", what, m, body)
	}
}

// plantedGate is a gate in front of the planted backends, with the MCP
// door, the widget and a cors block for a docs site on docsPort; its log
// (audit records included) goes to the returned file.
func plantedGate(t *testing.T, docsPort int) (*gate, string) {
	cors := fmt.Sprintf("cors {\n\t\t\tallowed_origins http://127.0.0.1:%d\n\t\t}", docsPort)
	return loggedGate(t, gateOptions{ragflowURL: plantedRAGFlow(t), meiliURL: plantedMeili(t),
		extraOptions: mcpBlock + "\n\t\twidget\n\t\t" + cors})
}

// TestHostileBackendsReachNoCaller: through every door (JSON, SSE, the
// Meilisearch-compatible routes, MCP tools/call) a planted url is dropped
// from its item, which stays, without a url; titles and snippets carry no
// markup; the honest url is kept. The audit record counts the dropped
// urls and so does caddy_wikigate_unsafe_urls_dropped_total.
func TestHostileBackendsReachNoCaller(t *testing.T) {
	g, logFile := plantedGate(t, freePort(t))
	agent := bearer(agentToken(t, "kunora-coding-agent"))
	page := `"page":{"url":"/system/components/kunora-kgent/"}`

	t.Run("JSON", func(t *testing.T) {
		for _, c := range []struct {
			path string
			auth map[string]string
			body string
		}{
			{"/answer/ask", nil, `{"question":"agent memory",` + page + `}`},
			{"/answer/search", nil, `{"question":"agent memory",` + page + `}`},
			{"/agent/tools/ask", agent, `{"question":"agent memory"}`},
			{"/agent/tools/search", agent, `{"question":"agent memory"}`},
			{"/agent/tools/get_context", agent, `{"question":"agent memory"}`},
			{"/agent/tools/get_page", agent, fmt.Sprintf(`{"paths":["%s/planted-0.md","%s/planted-6.md"]}`, kgentPath, kgentPath)},
		} {
			r := g.post(c.path, c.auth, c.body)
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", c.path, r.Status, r.Body)
			}
			assertNothingPlanted(t, c.path, r.Body)
			checkPlantedItems(t, c.path, r.json(t))
		}
	})

	t.Run("SSE", func(t *testing.T) {
		for _, c := range []struct {
			path string
			auth map[string]string
			body string
		}{
			{"/answer/ask", nil, `{"question":"agent memory",` + page + `}`},
			{"/agent/tools/ask", agent, `{"question":"agent memory"}`},
		} {
			resp := g.streamAsk(t.Context(), c.path, c.auth, c.body)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), "event: result") {
				t.Fatalf("%s stream: %d %s", c.path, resp.StatusCode, body)
			}
			assertNothingPlanted(t, c.path+" (SSE)", body)
			result, _ := checkSequence(t, readEvents(t, strings.NewReader(string(body)), nil))
			checkPlantedItems(t, c.path+" (SSE)", result)
		}
	})

	t.Run("Meilisearch routes", func(t *testing.T) {
		r := g.post("/answer/meilisearch/indexes/wiki_pages/search", nil,
			`{"q":"memory","attributesToCrop":["content"],"attributesToHighlight":["title"]}`)
		if r.Status != 200 {
			t.Fatalf("search: %d %s", r.Status, r.Body)
		}
		assertNothingPlanted(t, "meilisearch search", r.Body)
		checkMeiliHits(t, r.json(t))
		r = g.post("/answer/meilisearch/multi-search", nil,
			`{"queries":[{"indexUid":"wiki_pages","q":"memory","attributesToHighlight":["*"]}]}`)
		if r.Status != 200 {
			t.Fatalf("multi-search: %d %s", r.Status, r.Body)
		}
		assertNothingPlanted(t, "meilisearch multi-search", r.Body)
		checkMeiliHits(t, r.json(t)["results"].([]any)[0].(map[string]any))
	})

	t.Run("MCP", func(t *testing.T) {
		cs := mcpConnect(t, g, agentToken(t, "kunora-coding-agent"), "", nil)
		for tool, args := range map[string]any{
			"search":      map[string]any{"question": "agent memory"},
			"ask":         map[string]any{"question": "agent memory"},
			"get_context": map[string]any{"question": "agent memory"},
			"get_page":    map[string]any{"path": kgentPath + "/planted-0.md"},
		} {
			res := mcpCall(t, cs, tool, args)
			if res.IsError {
				t.Fatalf("tools/call %s: isError %+v", tool, res.Content)
			}
			raw, _ := json.Marshal(res)
			assertNothingPlanted(t, "MCP "+tool, raw)
			var shaped map[string]any
			structured(t, res, &shaped)
			checkPlantedItems(t, "MCP "+tool, shaped)
		}
	})

	t.Run("audit and metrics", func(t *testing.T) {
		r := g.post("/agent/tools/search", agent, `{"question":"agent memory"}`)
		id := r.Header.Get("X-Request-Id")
		deadline := time.Now().Add(5 * time.Second)
		for {
			if n, ok := auditedUnsafeURLs(t, logFile, id); ok {
				if n != len(plantedURLs) {
					t.Errorf("audit record %s: unsafe_urls_dropped %d, want %d", id, n, len(plantedURLs))
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no audit record for %s in %s", id, logFile)
			}
			time.Sleep(50 * time.Millisecond)
		}
		req, _ := http.NewRequest(http.MethodGet, g.url+"/metrics", nil)
		m := regexp.MustCompile(`caddy_wikigate_unsafe_urls_dropped_total\{tool="search"\} (\d+)`).FindSubmatch(g.do(req).Body)
		if m == nil {
			t.Fatal("no caddy_wikigate_unsafe_urls_dropped_total{tool=\"search\"} in /metrics")
		}
		if n, _ := strconv.Atoi(string(m[1])); n < len(plantedURLs) {
			t.Errorf("caddy_wikigate_unsafe_urls_dropped_total{tool=search} = %d, want at least %d", n, len(plantedURLs))
		}
	})
}

// checkPlantedItems walks a shaped result (an AnswerResult, search hits,
// pages, a context pack): every item with a path keeps its place; only
// the honest page has a url, and it is the honest one; titles are text.
func checkPlantedItems(t *testing.T, what string, body map[string]any) {
	t.Helper()
	items := 0
	for _, list := range []string{"citations", "relatedPages", "hits", "pages", "items"} {
		arr, _ := body[list].([]any)
		for _, x := range arr {
			it := x.(map[string]any)
			items++
			url, title := it["url"].(string), it["title"].(string)
			honest := strings.HasSuffix(it["path"].(string), "/planted-6.md")
			if honest && url != plantedSafeURL || !honest && url != "" {
				t.Errorf("%s: %s %v has url %q", what, list, it["path"], url)
			}
			if strings.ContainsAny(title, "<>") {
				t.Errorf("%s: %s title %q", what, list, title)
			}
		}
	}
	if items == 0 {
		t.Errorf("%s: no item came back (a url is dropped, never its item): %v", what, body)
	}
	if cites, _ := body["citations"].([]any); body["answer"] != nil && len(cites) != len(plantedURLs)+1 {
		t.Errorf("%s: %d citations, want every planted chunk cited: %v", what, len(cites), body)
	}
}

// checkMeiliHits: every planted hit is there, with an empty url but the
// honest one, a title without markup and Meilisearch's <em> highlights
// kept in _formatted.
func checkMeiliHits(t *testing.T, res map[string]any) {
	t.Helper()
	hits := res["hits"].([]any)
	if len(hits) != len(plantedURLs)+1 {
		t.Fatalf("%d hits, want %d", len(hits), len(plantedURLs)+1)
	}
	for _, x := range hits {
		h := x.(map[string]any)
		f, _ := h["_formatted"].(map[string]any)
		honest := h["path"] == kgentPath+"/planted-6.md"
		if u := h["url"]; honest && u != plantedSafeURL || !honest && u != "" {
			t.Errorf("hit %v: url %q", h["path"], u)
		}
		if f == nil || !strings.HasPrefix(f["title"].(string), "<em>Memory</em>") || strings.ContainsAny(h["title"].(string), "<>") {
			t.Errorf("hit %v: title %q, _formatted %v", h["path"], h["title"], f)
		}
	}
}

// auditedUnsafeURLs is the unsafe_urls_dropped of request id's audit
// record, and whether the record was written.
func auditedUnsafeURLs(t *testing.T, logFile, id string) (int, bool) {
	for _, l := range gateLogLines(t, logFile) {
		if l["msg"] == "wikigate call" && l["request_id"] == id {
			n, _ := l["unsafe_urls_dropped"].(float64)
			return int(n), true
		}
	}
	return 0, false
}

// The docs site in headless Chromium, embedding the widget WITHOUT any
// Content-Security-Policy, on a gate in front of the planted backends
// (tests/browser/hostile.test.mjs): a search and an answer show every
// planted item, none of their scripts runs (no __wg… flag is set, the
// document's title is unchanged), no link but http(s) is rendered, and
// clicking each rendered link runs nothing. A screenshot is saved.
func TestHostileBackendsInTheBrowser(t *testing.T) {
	node, chromium := browserTools(t)
	docsPort := freePort(t)
	g, _ := plantedGate(t, docsPort)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "hostile.test.mjs")
	cmd.Dir = browserTestDir
	cmd.Env = append(os.Environ(), "WIKIGATE_URL="+g.url, "CHROMIUM_PATH="+chromium,
		"WIKIGATE_ARTIFACTS="+artifactsDir(t), fmt.Sprintf("WIKIGATE_DOCS_PORT=%d", docsPort),
		"WIKIGATE_PLANTED="+strconv.Itoa(len(plantedURLs)+1), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test hostile.test.mjs (in tests/browser):\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}
