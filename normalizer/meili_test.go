package normalizer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
)

// update rewrites every golden file of the package: go test ./normalizer -update
var update = flag.Bool("update", false, "rewrite golden files")

const kgentPath = "publish/system/components/kunora-kgent"

var kgentScope = protocol.Scope{
	Projects: []string{"kunora-kgent"},
	Paths:    []string{kgentPath},
	Version:  "main",
}

// meiliCase is one testdata/meili/<name>.json: the scope it is checked
// against, the get_page paths asked for, and the paths that must come back
// (asserted here so a wrong golden cannot be blessed by -update).
type meiliCase struct {
	eff         protocol.Scope
	requested   []string
	searchPaths []string
	searchDrops int
	pagePaths   []string
	missing     []string
}

func withWorking(s protocol.Scope) protocol.Scope {
	s.IncludeWorkingDocs = true
	return s
}

var meiliCases = map[string]meiliCase{
	"in_scope": {
		eff:         kgentScope,
		requested:   []string{kgentPath + "/index.md", kgentPath + "/memory.md", kgentPath + "/missing.md", kgentPath + "/index.md"},
		searchPaths: []string{kgentPath + "/memory.md", kgentPath + "/index.md"},
		pagePaths:   []string{kgentPath + "/index.md", kgentPath + "/memory.md"},
		missing:     []string{kgentPath + "/missing.md"},
	},
	"out_of_scope_project": {
		eff:         kgentScope,
		requested:   []string{kgentPath + "/sessions.md", "publish/system/components/kunora-gateway/agent-sessions.md", kgentPath + "/index.md"},
		searchPaths: []string{kgentPath + "/index.md"},
		searchDrops: 5,
		pagePaths:   []string{kgentPath + "/index.md"},
		missing:     []string{kgentPath + "/sessions.md", "publish/system/components/kunora-gateway/agent-sessions.md"},
	},
	"extras_prefix_trap": {
		eff:         kgentScope,
		requested:   []string{"publish/system/components/kunora-kgent-extras/index.md", kgentPath},
		searchPaths: []string{kgentPath},
		searchDrops: 2,
		pagePaths:   []string{kgentPath},
		missing:     []string{"publish/system/components/kunora-kgent-extras/index.md"},
	},
	"working_doc": {
		eff:         withWorking(kgentScope),
		requested:   []string{kgentPath + "/design/agent-memory-v2.md", kgentPath + "/design/tool-sandbox.md"},
		searchPaths: []string{kgentPath + "/design/agent-memory-v2.md", kgentPath + "/memory.md"},
		searchDrops: 3,
		pagePaths:   []string{kgentPath + "/design/agent-memory-v2.md"},
		missing:     []string{kgentPath + "/design/tool-sandbox.md"},
	},
	"case_variant_path": {
		eff:       kgentScope,
		requested: []string{kgentPath + "/index.md", kgentPath + "/tools.md"},
		// INDEX.md lies inside the scope, so search keeps it; get_page
		// asked for index.md and must not answer with INDEX.md.
		searchPaths: []string{kgentPath + "/INDEX.md", kgentPath + "/tools.md"},
		searchDrops: 4,
		pagePaths:   []string{kgentPath + "/tools.md"},
		missing:     []string{kgentPath + "/index.md"},
	},
	"formatted_numbers": {
		eff:         kgentScope,
		requested:   []string{kgentPath + "/memory.md"},
		searchPaths: []string{kgentPath + "/memory.md", kgentPath + "/tools.md", kgentPath + "/index.md"},
		pagePaths:   []string{kgentPath + "/memory.md"},
	},
}

// meiliGolden is what a .golden.json holds for one input.
type meiliGolden struct {
	Scope     protocol.Scope `json:"scope"`
	Requested []string       `json:"requested"`
	Search    struct {
		Hits    []protocol.SearchHit `json:"hits"`
		Dropped int                  `json:"dropped"`
	} `json:"search"`
	GetPage struct {
		Pages   []protocol.Page      `json:"pages"`
		Errors  []protocol.PageError `json:"errors"`
		Dropped int                  `json:"dropped"`
	} `json:"getPage"`
}

func meiliInputs(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("testdata", "meili", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".golden.json") {
			inputs = append(inputs, f)
		}
	}
	return inputs
}

func readMeiliResponse(t testing.TB, file string) meili.SearchResponse {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var resp meili.SearchResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return resp
}

func TestMeiliGolden(t *testing.T) {
	inputs := meiliInputs(t)
	if len(inputs) != len(meiliCases) {
		t.Fatalf("%d inputs in testdata/meili, %d cases: keep them in step", len(inputs), len(meiliCases))
	}
	for _, file := range inputs {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			c, ok := meiliCases[name]
			if !ok {
				t.Fatalf("no meiliCases entry for %s", file)
			}
			resp := readMeiliResponse(t, file)
			var g meiliGolden
			g.Scope, g.Requested = c.eff, c.requested
			g.Search.Hits, g.Search.Dropped = SearchHits(resp.Hits, c.eff)
			g.GetPage.Pages, g.GetPage.Errors, g.GetPage.Dropped = Pages(resp.Hits, c.eff, c.requested)
			assertMeiliCase(t, c, g, len(resp.Hits))
			compareGolden(t, strings.TrimSuffix(file, ".json")+".golden.json", g)
		})
	}
}

func assertMeiliCase(t *testing.T, c meiliCase, g meiliGolden, nHits int) {
	t.Helper()
	var searchPaths, pagePaths, missing []string
	for _, h := range g.Search.Hits {
		searchPaths = append(searchPaths, h.Path)
	}
	for _, p := range g.GetPage.Pages {
		pagePaths = append(pagePaths, p.Path)
	}
	for _, e := range g.GetPage.Errors {
		missing = append(missing, e.Path)
		if e.Code != protocol.CodeNotFound || e.Message != "page not found in scope" {
			t.Errorf("page error %+v, want not_found", e)
		}
	}
	if !reflect.DeepEqual(searchPaths, c.searchPaths) || g.Search.Dropped != c.searchDrops {
		t.Errorf("search kept %q dropped %d, want %q dropped %d", searchPaths, g.Search.Dropped, c.searchPaths, c.searchDrops)
	}
	if !reflect.DeepEqual(pagePaths, c.pagePaths) || !reflect.DeepEqual(missing, c.missing) {
		t.Errorf("get_page returned %q missing %q, want %q missing %q", pagePaths, missing, c.pagePaths, c.missing)
	}
	if len(g.Search.Hits)+g.Search.Dropped != nHits {
		t.Errorf("%d hits kept + %d dropped != %d returned", len(g.Search.Hits), g.Search.Dropped, nHits)
	}
}

func compareGolden(t *testing.T, golden string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./normalizer -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs (go test ./normalizer -update rewrites it):\n%s", golden, buf.Bytes())
	}
}

func TestMeiliSnippet(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name string
		hit  meili.Hit
		want string
	}{
		{"crop kept, tags and newlines gone", meili.Hit{Content: "ignored", Formatted: meili.Formatted{Content: "…the <em>memory</em>\n\n  window…"}}, "…the memory window…"},
		{"no crop: start of content", meili.Hit{Content: "# Title\n\nBody  text\there."}, "# Title Body text here."},
		{"long content cut at 200 runes", meili.Hit{Content: long}, strings.TrimSpace(long[:200]) + "…"},
		{"multibyte content cut on a rune", meili.Hit{Content: strings.Repeat("文", 250)}, strings.Repeat("文", 200) + "…"},
		{"blank crop falls back", meili.Hit{Content: "plain", Formatted: meili.Formatted{Content: " \n"}}, "plain"},
		{"empty", meili.Hit{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := meiliSnippet(tt.hit); got != tt.want {
				t.Errorf("snippet = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMeiliEmptyResultsEncodeAsArrays(t *testing.T) {
	hits, dropped := SearchHits(nil, kgentScope)
	pages, errs, pdropped := Pages(nil, kgentScope, nil)
	raw, _ := json.Marshal(map[string]any{"hits": hits, "pages": pages, "errors": errs})
	if string(raw) != `{"errors":[],"hits":[],"pages":[]}` || dropped != 0 || pdropped != 0 {
		t.Errorf("empty results = %s (%d, %d dropped)", raw, dropped, pdropped)
	}
	p, _, _ := Pages([]meili.Hit{{Path: kgentPath, Project: "kunora-kgent", Version: "main", Status: "approved"}}, kgentScope, []string{kgentPath})
	if len(p) != 1 || p[0].Headings == nil {
		t.Errorf("page without headings = %+v, want headings []", p)
	}
}
