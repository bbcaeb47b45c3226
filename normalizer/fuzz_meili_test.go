package normalizer

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// FuzzMeiliHits feeds arbitrary hit JSON (one hit or an array) through
// SearchHits and Pages: no panic, and nothing outside the scope comes out.
// Seeds are every hit of testdata/meili.
func FuzzMeiliHits(f *testing.F) {
	for _, file := range meiliInputs(f) {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var resp struct{ Hits []json.RawMessage }
		if err := json.Unmarshal(raw, &resp); err != nil {
			f.Fatal(err)
		}
		for _, h := range resp.Hits {
			f.Add([]byte(h), false)
			f.Add([]byte(h), true)
		}
	}
	f.Add([]byte(`[{"path":"publish/system/components/kunora-kgent","project":"kunora-kgent","version":"main","status":"approved"},{"id":1}]`), false)
	f.Add([]byte(`{"path":"publish/system/components/kunora-kgent/../x","project":"kunora-kgent","version":"main","status":"working","_formatted":{"content":7}}`), true)

	f.Fuzz(func(t *testing.T, data []byte, working bool) {
		hits := decodeFuzzHits(data)
		if hits == nil {
			return
		}
		eff := kgentScope
		eff.IncludeWorkingDocs = working
		inScope := 0
		for _, h := range hits {
			if meiliHitInScope(h, eff) {
				inScope++
			}
		}

		out, dropped := SearchHits(hits, eff)
		if len(out) != inScope || dropped != len(hits)-inScope {
			t.Fatalf("search kept %d dropped %d of %d hits, %d in scope", len(out), dropped, len(hits), inScope)
		}
		for _, h := range out {
			assertFuzzInScope(t, eff, h.SourceProject, h.Version, h.Path)
		}

		requested := []string{kgentPath + "/index.md"}
		for _, h := range hits {
			requested = append(requested, h.Path)
		}
		pages, errs, _ := Pages(hits, eff, requested)
		for _, p := range pages {
			assertFuzzInScope(t, eff, p.SourceProject, p.Version, p.Path)
			if !slices.Contains(requested, p.Path) {
				t.Fatalf("page %q was not requested", p.Path)
			}
		}
		slices.Sort(requested)
		if unique := len(slices.Compact(requested)); len(pages)+len(errs) != unique {
			t.Fatalf("%d pages + %d errors for %d requested paths", len(pages), len(errs), unique)
		}
	})
}

func decodeFuzzHits(data []byte) []meili.Hit {
	var hits []meili.Hit
	if json.Unmarshal(data, &hits) == nil {
		return hits
	}
	var one meili.Hit
	if json.Unmarshal(data, &one) == nil {
		return []meili.Hit{one}
	}
	return nil
}

func assertFuzzInScope(t *testing.T, eff protocol.Scope, project, version, path string) {
	t.Helper()
	if !slices.Contains(eff.Projects, project) || version != eff.Version ||
		!slices.ContainsFunc(eff.Paths, func(p string) bool { return scope.Covers(p, path) }) {
		t.Fatalf("out-of-scope result: project %q version %q path %q", project, version, path)
	}
}
