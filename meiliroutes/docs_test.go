package meiliroutes

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
)

// pagesSearch answers its pages (and their facet counts) to every search
// and keeps what it was sent.
type pagesSearch struct {
	hits []meili.Hit
	sent []meili.SearchParams
}

func (s *pagesSearch) Search(_ context.Context, p meili.SearchParams) (*meili.SearchResponse, error) {
	s.sent = append(s.sent, p)
	dist := map[string]map[string]int{}
	for _, h := range s.hits {
		for _, f := range p.Facets {
			v := map[string]string{"project": h.Project, "version": h.Version, "status": h.Status}[f]
			if dist[f] == nil {
				dist[f] = map[string]int{}
			}
			dist[f][v]++
		}
	}
	return &meili.SearchResponse{Hits: s.hits, Limit: 20, EstimatedTotalHits: len(s.hits), FacetDistribution: dist}, nil
}

func (s *pagesSearch) Health(context.Context) error { return nil }

var docsScope = protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/k"}, Version: "main"}

// docsPages are an in-scope page, a hidden one, and a page whose backend
// text is hostile (a javascript: url, markup in a heading and the text).
func docsPages() []meili.Hit {
	return []meili.Hit{
		{ID: "k-memory", Path: "publish/k/memory.md", URL: "/docs/memory", Title: "Agent memory", Project: "kunora-kgent",
			Version: "main", Status: "approved", RankingScore: 0.91,
			Content: "# Agent memory\n\nAgents remember.\n\n## Memory backends {#backends}\n\nRedis keeps the memory of each agent for a day and a night and more.\n\n" +
				"```\n## Not a heading\n```\n\n### Tuning\n\nSet the [TTL](/docs/ttl).\n"},
		{ID: "secret", Path: "publish/secret/memory.md", URL: "/docs/secret", Title: "Secret memory backends", Project: "kunora-secret",
			Version: "main", Status: "approved", Content: "## Memory backends\n\nhidden"},
		{ID: "k-evil", Path: "publish/k/evil.md", URL: "javascript:alert(1)", Title: `<img src=x onerror=alert(1)>Evil`, Project: "kunora-kgent",
			Version: "main", Status: "approved",
			Content: "## <img src=x onerror=alert(2)>Memory backends\n\n<script>alert(3)</script>Memory <b onclick=x>backends</b> here."},
	}
}

// The docs-scraper view (index uid wiki_pages-docs): one record per
// in-scope page, its section that best matches the query, with the
// hierarchy from the page title and headings, the section's anchor in the
// url, docs-scraper's null levels and radio levels; _formatted highlighted
// and cropped by the gate with the caller's tags. The hidden page is not
// there; the hostile page's url is gone (safeurl) and no markup but the
// highlight tags is left in any value. The backend is searched with the
// decided filter and asked for no formatting.
func TestMeiliDocsViewRecords(t *testing.T) {
	search := &pagesSearch{hits: docsPages()}
	post := meiliPoster(t, search, docsScope)
	code, body := post("indexes/wiki_pages-docs/search", `{"q":"memory backends","attributesToHighlight":["*"],
		"attributesToCrop":["content"],"cropLength":6,"highlightPreTag":"<mark>","highlightPostTag":"</mark>"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var res struct {
		Hits               []map[string]any `json:"hits"`
		EstimatedTotalHits int              `json:"estimatedTotalHits"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.EstimatedTotalHits != 2 {
		t.Fatalf("want the two in-scope pages: %s", body)
	}
	first := res.Hits[0]
	want := map[string]any{
		"objectID": "k-memory#backends", "hierarchy_lvl0": "kunora-kgent", "hierarchy_lvl1": "Agent memory",
		"hierarchy_lvl2": "Memory backends", "hierarchy_lvl3": nil, "hierarchy_lvl6": nil,
		"hierarchy_radio_lvl2": nil, "type": "content", "anchor": "backends",
		"content": "Redis keeps the memory of each agent for a day and a night and more.",
		"url":     "/docs/memory#backends", "url_without_anchor": "/docs/memory",
		"project": "kunora-kgent", "version": "main", "status": "approved",
	}
	for k, v := range want {
		if !reflect.DeepEqual(first[k], v) {
			t.Errorf("%s = %#v, want %#v", k, first[k], v)
		}
	}
	f := first["_formatted"].(map[string]any)
	if f["hierarchy_lvl2"] != "<mark>Memory</mark> <mark>backends</mark>" || f["hierarchy_lvl1"] != "Agent <mark>memory</mark>" ||
		f["content"] != "…keeps the <mark>memory</mark> of each agent…" || f["url"] != "/docs/memory#backends" || f["hierarchy_lvl3"] != nil {
		t.Errorf("_formatted: %v", f)
	}
	evil := res.Hits[1]
	if evil["url"] != nil || evil["url_without_anchor"] != nil || evil["anchor"] != "memory-backends" {
		t.Errorf("hostile page: url %v, anchor %v", evil["url"], evil["anchor"])
	}
	raw, _ := json.Marshal(res.Hits)
	for _, bad := range []string{"javascript:", "<img", "onerror", "<script", "alert(3)", "<b ", "onclick"} {
		if strings.Contains(string(raw), bad) {
			t.Errorf("%q in the records: %s", bad, raw)
		}
	}
	if evil["hierarchy_lvl1"] != "Evil" || evil["content"] != "Memory backends here." {
		t.Errorf("hostile page as text: %v", evil)
	}
	sent := search.sent[0]
	if !strings.HasPrefix(sent.Filter, "("+meili.Filter(docsScope)+")") && sent.Filter != meili.Filter(docsScope) {
		t.Errorf("filter %q", sent.Filter)
	}
	if sent.AttributesToHighlight != nil || sent.AttributesToCrop != nil || sent.HighlightPreTag != "" {
		t.Errorf("the backend was asked to format: %+v", sent)
	}
}

// A section is chosen by the query words; without any, the page's first
// section; a word in a fenced code block is not a heading.
func TestPageSections(t *testing.T) {
	content := docsPages()[0].Content
	secs := pageSections(content)
	var anchors []string
	for _, s := range secs {
		anchors = append(anchors, s.anchor)
	}
	if !reflect.DeepEqual(anchors, []string{"", "backends", "tuning"}) {
		t.Fatalf("anchors %q", anchors)
	}
	if secs[2].trail[2] != "Memory backends" || secs[2].trail[3] != "Tuning" || secs[2].body != "Set the TTL." {
		t.Fatalf("tuning section %+v", secs[2])
	}
	if s := bestSection(secs, queryTerms("ttl")); s.anchor != "tuning" {
		t.Errorf("ttl → %q", s.anchor)
	}
	if s := bestSection(secs, queryTerms("")); s.anchor != "" || s.body != "Agents remember." {
		t.Errorf("no query → %+v", s)
	}
	if s := bestSection(secs, queryTerms("not heading")); s.anchor != "" {
		t.Errorf("a heading in code was read: %+v", s)
	}
	if len(pageSections("")) != 0 || bestSection(nil, nil).anchor != "" {
		t.Error("an empty page")
	}
}

// Highlighting as Meilisearch does without typos: whole words, the last
// query word also as a prefix, case-folded, Chinese anywhere.
func TestHighlightTerms(t *testing.T) {
	cases := []struct{ q, text, want string }{
		{"memory back", "Memory backends, memorybank", "<em>Memory</em> <em>back</em>ends, memorybank"},
		{"mem", "memory Mem", "<em>mem</em>ory <em>Mem</em>"},
		{"do it", "docs do it", "docs <em>do</em> <em>it</em>"},
		{"记忆", "智能体记忆后端", "智能体<em>记忆</em>后端"},
		{"", "memory", "memory"},
		{"x", "", ""},
	}
	for _, c := range cases {
		if got := highlightTerms(c.text, queryTerms(c.q), "<em>", "</em>"); got != c.want {
			t.Errorf("%q in %q: %q, want %q", c.q, c.text, got, c.want)
		}
	}
	if got := cropWords("a b c d e f g memory h i j k", queryTerms("memory"), 4, "…"); got != "…g memory h i…" {
		t.Errorf("crop %q", got)
	}
	if got := cropWords("a b c d e", queryTerms("zzz"), 3, "…"); got != "a b c…" {
		t.Errorf("crop without a match %q", got)
	}
}
