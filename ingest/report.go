package ingest

import (
	"fmt"
	"io"
	"sort"
)

// Report is what one backend's run changed, by page path: the operator's
// record of a load, and the proof that a re-run changed nothing.
type Report struct {
	Backend   string    `json:"backend"`
	DryRun    bool      `json:"dryRun"`
	Added     []string  `json:"added"`
	Changed   []string  `json:"changed"`
	Removed   []string  `json:"removed"`
	Unchanged int       `json:"unchanged"`
	Failures  []Failure `json:"failures"`
	// CreatedDatasets names the RAGFlow datasets this run created: their
	// ids must reach the policy's catalog.
	CreatedDatasets []string `json:"createdDatasets,omitempty"`
	// RebuiltVia is the index a Meilisearch rebuild loaded and swapped in.
	RebuiltVia string `json:"rebuiltVia,omitempty"`
}

// dropFailed keeps failed pages out of the added/changed/removed lists: a
// page reported there is one the backend now holds as listed.
func (r *Report) dropFailed() {
	failed := map[string]bool{}
	for _, f := range r.Failures {
		failed[f.Path] = true
	}
	keep := func(list []string) []string {
		var out []string
		for _, p := range list {
			if !failed[p] {
				out = append(out, p)
			}
		}
		return out
	}
	r.Added, r.Changed, r.Removed = keep(r.Added), keep(r.Changed), keep(r.Removed)
}

// Print writes the summary line and one line per page touched.
func (r *Report) Print(w io.Writer) {
	verb := ""
	if r.DryRun {
		verb = " (dry run: would be)"
	}
	fmt.Fprintf(w, "%s%s: %d added, %d changed, %d removed, %d unchanged, %d failed\n",
		r.Backend, verb, len(r.Added), len(r.Changed), len(r.Removed), r.Unchanged, len(r.Failures))
	for _, l := range []struct {
		mark  string
		paths []string
	}{{"+", r.Added}, {"~", r.Changed}, {"-", r.Removed}} {
		sorted := append([]string(nil), l.paths...)
		sort.Strings(sorted)
		for _, p := range sorted {
			fmt.Fprintf(w, "  %s %s\n", l.mark, p)
		}
	}
	if r.RebuiltVia != "" {
		fmt.Fprintf(w, "  * rebuilt: every page loaded into %s, swapped in, the old contents deleted\n", r.RebuiltVia)
	}
	for _, name := range r.CreatedDatasets {
		fmt.Fprintf(w, "  * created dataset %q\n", name)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  ! %s: %s\n", f.Path, f.Err)
	}
}
