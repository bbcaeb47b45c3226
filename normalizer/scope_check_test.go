package normalizer

import (
	"testing"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

func kgentHit(path string) meili.Hit {
	return meili.Hit{Path: path, Project: "kunora-kgent", Version: "main", Status: "approved"}
}

// A hit path that is not a clean repository path is covered by the scope as
// a string but names a page elsewhere, so it is dropped like such a chunk.
func TestMeiliHitPathMustBeClean(t *testing.T) {
	clean := kgentPath + "/index.md"
	unclean := []string{
		kgentPath + "/../kunora-gateway/index.md",
		kgentPath + "/./index.md",
		kgentPath + "//index.md",
		kgentPath + "/guides/",
		kgentPath + `/a\b.md`,
	}
	hits := []meili.Hit{kgentHit(clean)}
	for _, p := range unclean {
		hits = append(hits, kgentHit(p))
	}
	got, dropped := SearchHits(hits, kgentScope)
	if len(got) != 1 || got[0].Path != clean || dropped != len(unclean) {
		t.Errorf("SearchHits kept %+v, dropped %d; want only %q", got, dropped, clean)
	}
	pages, errs, pdropped := Pages(hits, kgentScope, append([]string{clean}, unclean...))
	if len(pages) != 1 || pages[0].Path != clean || len(errs) != len(unclean) || pdropped != len(unclean) {
		t.Errorf("Pages = %+v, errors %+v, dropped %d; want only %q", pages, errs, pdropped, clean)
	}
}

// leakScope is the review's example as the policy now decides it:
// kunora-kgent granted only on its guides, kunora-gateway on the whole
// components directory.
var leakScope = protocol.Scope{
	Projects:     []string{"kunora-gateway", "kunora-kgent"},
	Paths:        []string{"publish/system/components", kgentPath + "/guides"},
	Version:      "main",
	ProjectPaths: map[string][]string{"kunora-gateway": {"publish/system/components"}, "kunora-kgent": {kgentPath + "/guides"}},
}

func TestProjectPathsDropAnotherProjectsPath(t *testing.T) {
	secret := kgentPath + "/internal/secret.md"
	guide := kgentPath + "/guides/memory.md"
	gatewayHit := meili.Hit{Path: "publish/system/components/kunora-gateway/routes.md", Project: "kunora-gateway", Version: "main", Status: "approved"}
	got, dropped := SearchHits([]meili.Hit{kgentHit(secret), kgentHit(guide), gatewayHit}, leakScope)
	if len(got) != 2 || got[0].Path != guide || got[1].Path != gatewayHit.Path || dropped != 1 {
		t.Errorf("SearchHits kept %+v, dropped %d; want the guide and the gateway page", got, dropped)
	}
	chunk := func(path string) ragflow.Chunk {
		c := inChunk("c", 0.5)
		c.Metadata["path"] = path
		return c
	}
	kept, dropped := InScope([]ragflow.Chunk{chunk(secret), chunk(guide)}, leakScope)
	if len(kept) != 1 || kept[0].MetaString("path") != guide || dropped != 1 {
		t.Errorf("InScope kept %+v, dropped %d; want only the guide", kept, dropped)
	}
}

func TestInScopeDatasets(t *testing.T) {
	eff := kgentScope
	eff.Datasets = []string{"ds-kgent"}
	withDataset := func(id string) ragflow.Chunk {
		c := inChunk("c", 0.5)
		c.DatasetID = id
		return c
	}
	cases := map[string]struct {
		eff   protocol.Scope
		chunk ragflow.Chunk
		keep  bool
	}{
		"decided dataset":                 {eff, withDataset("ds-kgent"), true},
		"dataset outside the decision":    {eff, withDataset("ds-other"), false},
		"no dataset id":                   {eff, withDataset(""), false},
		"datasets not decided (no check)": {kgentScope, withDataset("ds-other"), true},
		"no dataset id, no decided list":  {kgentScope, withDataset(""), true},
		"decided dataset, other project":  {eff, func() ragflow.Chunk { c := withDataset("ds-kgent"); c.Metadata["project"] = "kunora-gateway"; return c }(), false},
	}
	for name, tc := range cases {
		kept, dropped := InScope([]ragflow.Chunk{tc.chunk}, tc.eff)
		if (len(kept) == 1) != tc.keep || len(kept)+dropped != 1 {
			t.Errorf("%s: kept %d dropped %d, want keep=%v", name, len(kept), dropped, tc.keep)
		}
	}
}
