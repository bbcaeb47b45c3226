package doctor

import (
	"encoding/json"
	"fmt"
	"slices"
)

// DefaultScope is the policy data's humans.default_scope (what a question
// asked on no page is scoped to) and the public projects it may name.
type DefaultScope struct {
	Projects []string
	Version  string
	Public   []string // humans.public.projects ids
}

// ParseDefaultScope reads humans.default_scope and the public project ids
// out of a policy data document; data without humans has none to check.
func ParseDefaultScope(data []byte) (DefaultScope, error) {
	var doc struct {
		Humans *struct {
			Public struct {
				Projects []struct {
					ID string `json:"id"`
				} `json:"projects"`
			} `json:"public"`
			DefaultScope struct {
				Projects []string `json:"projects"`
				Version  string   `json:"version"`
			} `json:"default_scope"`
		} `json:"humans"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return DefaultScope{}, fmt.Errorf("policy data: %w", err)
	}
	if doc.Humans == nil {
		return DefaultScope{}, nil
	}
	ds := DefaultScope{Projects: doc.Humans.DefaultScope.Projects, Version: doc.Humans.DefaultScope.Version}
	for _, p := range doc.Humans.Public.Projects {
		ds.Public = append(ds.Public, p.ID)
	}
	if ds.Version == "" {
		ds.Version = "main"
	}
	return ds, nil
}

// checkDefaultScope: every project of the default scope must be a public
// project the catalog has approved datasets for at the default version;
// otherwise every question asked on no page (or on a page outside the
// site mapping) is refused.
func checkDefaultScope(r *Report, cfg Config) {
	ds := cfg.DefaultScope
	for _, p := range ds.Projects {
		switch {
		case !slices.Contains(ds.Public, p):
			r.add("catalog", Fail, "humans.default_scope names project %q, which is not in humans.public.projects: questions asked on no page are refused (wikigate project proposes the change)", p)
		case len(cfg.Catalog.Datasets[p][ds.Version]["approved"]) == 0:
			r.add("catalog", Fail, "humans.default_scope names project %q, which has no approved dataset at version %q in the catalog: questions asked on no page are refused (wikigate project proposes the change)", p, ds.Version)
		}
	}
}
