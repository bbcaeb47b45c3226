package doctor

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Catalog is the policy data's catalog (rego/data.json): the index the
// gate searches and, per project, version and status, the RAGFlow datasets
// that hold those pages (one status per dataset, so a decision on statuses
// is a choice of datasets).
type Catalog struct {
	Index    string                                    `json:"index"`
	Datasets map[string]map[string]map[string][]string `json:"datasets"`
}

// ParseCatalog reads the catalog out of a policy data document (the whole
// data.json, whose "catalog" member it is).
func ParseCatalog(data []byte) (Catalog, error) {
	var doc struct {
		Catalog *Catalog `json:"catalog"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Catalog{}, fmt.Errorf("policy data: %w", err)
	}
	if doc.Catalog == nil {
		return Catalog{}, fmt.Errorf("policy data has no catalog")
	}
	return *doc.Catalog, nil
}

// slot is one catalog dataset and the pages it must hold.
type slot struct{ project, version, status, id string }

func (s slot) String() string {
	return fmt.Sprintf("%s (project %s, version %s, status %s)", s.id, s.project, s.version, s.status)
}

// slots lists every catalog dataset in a stable order.
func (c Catalog) slots() []slot {
	var out []slot
	for p, versions := range c.Datasets {
		for v, statuses := range versions {
			for s, ids := range statuses {
				for _, id := range ids {
					out = append(out, slot{p, v, s, id})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// has reports whether the catalog knows project, version and status.
func (c Catalog) has(project, version, status string) bool {
	_, ok := c.Datasets[project][version][status]
	return ok
}

// checkCatalogShape: the catalog must name datasets, each in one place, and
// the index the gate is configured to search.
func checkCatalogShape(r *Report, cfg Config) {
	slots := cfg.Catalog.slots()
	if len(slots) == 0 {
		r.add("catalog", Fail, "the policy data's catalog names no datasets: every answer would be refused")
		return
	}
	seen := map[string]slot{}
	for _, s := range slots {
		if prev, dup := seen[s.id]; dup {
			r.add("catalog", Fail, "dataset %s is listed twice (%s/%s/%s and %s/%s/%s): a dataset holds one project, version and status",
				s.id, prev.project, prev.version, prev.status, s.project, s.version, s.status)
		}
		seen[s.id] = s
	}
	if cfg.Catalog.Index != "" && cfg.Meili.Index != "" && cfg.Catalog.Index != cfg.Meili.Index {
		r.add("catalog", Fail, "the catalog's index is %q but the gate searches %q", cfg.Catalog.Index, cfg.Meili.Index)
	}
	r.add("catalog", OK, "%d dataset(s) in the catalog", len(slots))
}
