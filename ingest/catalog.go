package ingest

import (
	"encoding/json"
	"io"
)

// Catalog is the dataset catalog the policy reads, in the shape of
// rego/data.json's "catalog": the Meilisearch index and, per project,
// version and status, the RAGFlow dataset ids a decision may search.
type Catalog struct {
	Index    string                                    `json:"index,omitempty"`
	Datasets map[string]map[string]map[string][]string `json:"datasets"`
}

// newCatalog lists every resolved dataset; one not created yet (a dry run)
// is listed as "(to be created: <name>)" so the output shows it is missing.
func newCatalog(datasets map[DatasetKey]string, m *Mapping) *Catalog {
	c := &Catalog{Datasets: map[string]map[string]map[string][]string{}}
	for k, id := range datasets {
		if id == "" {
			id = "(to be created: " + m.DatasetName(k.Project, k.Version, k.Status) + ")"
		}
		byVersion := c.Datasets[k.Project]
		if byVersion == nil {
			byVersion = map[string]map[string][]string{}
			c.Datasets[k.Project] = byVersion
		}
		byStatus := byVersion[k.Version]
		if byStatus == nil {
			byStatus = map[string][]string{}
			byVersion[k.Version] = byStatus
		}
		byStatus[k.Status] = append(byStatus[k.Status], id)
	}
	return c
}

// Write prints the catalog as indented JSON (keys sorted).
func (c *Catalog) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"catalog": c})
}
