package normalizer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/ragflow"
)

// hostileURLs are urls a document's editor could plant; each is dropped.
var hostileURLs = []string{
	"javascript:alert(document.domain)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
	"data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "file:///etc/passwd",
	"//evil.example/x", "/\\evil.example/x", "&#106;avascript:alert(1)", "javascript%3Aalert(1)",
}

const plantedTitle = `Memory <img src=x onerror="alert(1)"><script>alert(2)</script>`

// An answer built from chunks whose url is hostile cites them without a
// url, and lists related pages without one; their titles are text.
func TestAnswerFromChunksWithHostileURLs(t *testing.T) {
	var chunks []ragflow.Chunk
	for i, u := range hostileURLs {
		c := inChunk(string(rune('a'+i)), 0.9-float64(i)/100)
		c.Metadata["url"], c.Metadata["title"] = u, plantedTitle
		chunks = append(chunks, c)
	}
	safe := inChunk("safe", 0.95)
	chunks = append(chunks, safe)
	if got := DropUnsafeChunkURLs(chunks); got != len(hostileURLs) {
		t.Fatalf("dropped %d urls, want %d", got, len(hostileURLs))
	}
	res, _ := Answer("Heading a text [ID:0]. Heading b text [ID:1].", chunks, kgentScope, AnswerOptions{})
	if len(res.Citations) == 0 || len(res.RelatedPages) == 0 {
		t.Fatalf("want citations and related pages: %+v", res)
	}
	b, _ := json.Marshal(res)
	assertNoHostileText(t, string(b))
	for _, c := range res.Citations {
		if c.URL != "" || c.Title != "Memory" {
			t.Errorf("citation %+v: want no url and the title as text", c)
		}
	}
	if safe.MetaString("url") != "/system/components/kunora-kgent/safe/" {
		t.Errorf("a safe url was touched: %q", safe.MetaString("url"))
	}
	pack, _ := ContextPack("q", chunks, kgentScope, 0)
	b, _ = json.Marshal(pack)
	for _, it := range pack.Items {
		if it.URL != "" && it.URL != "/system/components/kunora-kgent/safe/" {
			t.Errorf("context item url %q", it.URL)
		}
	}
	if strings.Contains(string(b), "javascript") {
		t.Errorf("context pack: %s", b)
	}
}

// A url that is not a string at all is dropped and counted too; a chunk
// without one is left alone.
func TestDropUnsafeChunkURLsOddMetadata(t *testing.T) {
	a, b, c := inChunk("a", 0.9), inChunk("b", 0.9), inChunk("c", 0.9)
	a.Metadata["url"] = 7
	delete(b.Metadata, "url")
	c.Metadata = nil
	chunks := []ragflow.Chunk{a, b, c}
	if got := DropUnsafeChunkURLs(chunks); got != 1 {
		t.Fatalf("dropped %d, want 1", got)
	}
	if _, ok := a.Metadata["url"]; ok {
		t.Error("a non-string url was kept")
	}
}

func hostileHit(url string) meili.Hit {
	return meili.Hit{
		ID: "x", Path: kgentPath + "/memory.md", URL: url, Title: plantedTitle,
		Project: "kunora-kgent", Version: "main", Status: "approved",
		Content: `Agent <img src=x onerror=alert(3)> memory <script>alert(4)</script> keeps a window.`,
		Formatted: meili.Formatted{
			Title:   meili.FormattedText(`<em>Memory</em> <img src=x onerror=alert(5)>`),
			Content: meili.FormattedText(`…Agent <img src=x onerror=alert(6)> <em>memory</em> <script>alert(7)</script> keeps a window <img src=x onerror=alert(8)`),
		},
	}
}

// Search hits, pages and the Meilisearch-compatible hits lose a hostile url
// (the hit stays) and every tag in titles and snippets; the Meilisearch
// routes keep Meilisearch's own <em> highlights.
func TestHitsWithHostileURLsAndMarkup(t *testing.T) {
	var hits []meili.Hit
	for _, u := range hostileURLs {
		hits = append(hits, hostileHit(u))
	}
	hits = append(hits, hostileHit("https://docs.example/memory"))
	if got := DropUnsafeHitURLs(hits); got != len(hostileURLs) {
		t.Fatalf("dropped %d urls, want %d", got, len(hostileURLs))
	}
	search, _ := SearchHits(hits, kgentScope)
	if len(search) != len(hits) {
		t.Fatalf("%d hits, want all %d: a url is dropped, not its hit", len(search), len(hits))
	}
	for _, h := range search[:len(hostileURLs)] {
		if h.URL != "" || h.Title != "Memory" || h.Snippet != "…Agent memory keeps a window" {
			t.Errorf("hit %+v", h)
		}
	}
	if last := search[len(search)-1]; last.URL != "https://docs.example/memory" {
		t.Errorf("a safe url was dropped: %+v", last)
	}
	b, _ := json.Marshal(search)
	assertNoHostileText(t, string(b))

	pages, _, _ := Pages(hits[:1], kgentScope, []string{kgentPath + "/memory.md"})
	if len(pages) != 1 || pages[0].URL != "" || pages[0].Title != "Memory" {
		t.Errorf("page %+v", pages)
	}

	if kept, _ := MeiliHitsInScope([]meili.Hit{hostileHit("/x")}, kgentScope, "<mark>", "</mark>"); kept[0].Formatted.Title != "<em>Memory</em>" {
		t.Errorf("the default <em> stays beside the caller's tags: %q", kept[0].Formatted.Title)
	}
	kept, _ := MeiliHitsInScope(hits[:1], kgentScope)
	h := kept[0]
	if h.URL != "" || h.Title != "Memory" || h.Formatted.Title != "<em>Memory</em>" ||
		h.Formatted.Content != "…Agent <em>memory</em> keeps a window" {
		t.Errorf("Meilisearch hit: url %q title %q formatted %q / %q", h.URL, h.Title, h.Formatted.Title, h.Formatted.Content)
	}
}

func TestSnippetFromContentLosesMarkup(t *testing.T) {
	h := hostileHit("/x")
	h.Formatted = meili.Formatted{}
	hits, _ := SearchHits([]meili.Hit{h}, kgentScope)
	if got := hits[0].Snippet; got != "Agent memory keeps a window." {
		t.Errorf("snippet %q", got)
	}
}

func TestStripMarkup(t *testing.T) {
	for in, want := range map[string]string{
		"Plain title":                      "Plain title",
		"a < b and c > d":                  "a < b and c > d",
		"x<3":                              "x<3",
		"<b>Bold</b> text":                 "Bold text",
		"<<b>script>alert(1)<</b>/script>": "< script>alert(1)< /script>",
		"a<script>alert(1)</script>b":      "a b",
		"a<SCRIPT x>alert(1)</ScRiPt >b":   "a b",
		"a<style>*{x:y}</style>b":          "a b",
		"a<script>alert(1)":                "a",
		"a<scripts>text</scripts>b":        "a text b",
		"<!-- c --> after":                 "after",
		"<?php x ?> after":                 "after",
		"<!doctype html> after":            "after",
		`<img src=x onerror="alert(1)"`:    "",
		"<svg/onload=alert(1)>Title":       "Title",
		"<ScRiPt>alert(1)</sCrIpT>after":   "after",
		"<em>kept?</em>":                   "kept?",
		"   spaced   <br>  out  ":          "spaced out",
	} {
		if got := stripMarkup(in); got != want {
			t.Errorf("stripMarkup(%q) = %q, want %q", in, got, want)
		}
	}
	if got := stripMarkup("<em>a</em> <em onclick=x>b</em>", meiliHighlightTags...); got != "<em>a</em> b</em>" {
		t.Errorf("keeping <em>: %q", got)
	}
	if got := stripMarkup("<mark>a</mark> <em>b</em> <mark x>c", "<mark>", "</mark>"); got != "<mark>a</mark> b c" {
		t.Errorf("keeping <mark>: %q", got)
	}
}

// FuzzStripMarkup: whatever goes in, no tag opener comes out (with
// Meilisearch's highlights kept, but a bare <em> or </em>).
func FuzzStripMarkup(f *testing.F) {
	for _, s := range []string{plantedTitle, "<<b>script>", "<em>x</em><em x>", "a<", "<a", "<\x00a>", "<</</a>>"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, keepEm bool) {
		var keep []string
		if keepEm {
			keep = meiliHighlightTags
		}
		out := stripMarkup(s, keep...)
		for i := 0; i < len(out); i++ {
			if out[i] == '<' && opensTag(out, i) && !isKept(out[i:], keep) {
				t.Fatalf("stripMarkup(%q, %v) = %q keeps a tag at %d", s, keepEm, out, i)
			}
		}
	})
}

func assertNoHostileText(t *testing.T, body string) {
	t.Helper()
	for _, s := range []string{"javascript", "JavaScript", "data:", "vbscript", "file:", "evil.example", "<img", "<script", "onerror", `\u003c`} {
		if strings.Contains(body, s) {
			t.Errorf("%q reached the result: %s", s, body)
		}
	}
}
