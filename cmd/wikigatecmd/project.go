package wikigatecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/ingest"
	"github.com/wikigate/wikigate/projects"
	"github.com/wikigate/wikigate/sitemap"
)

const projectLong = `Proposes the policy-data change the projects of a docs tree need, for the
security team to review and apply (docs/ingest.md, Adding a project). It reads the
tree and its mapping file as 'wikigate ingest' does, the dataset catalog
ingest wrote (--catalog), and the policy data (--data), and writes a JSON
merge patch (RFC 7386) holding only what changes:

  catalog.datasets.<project>     the RAGFlow datasets ingest holds for it
  humans.public.projects         each new project and its root (the mapping's path)
  humans.public.paths/versions   what the new roots and versions need
  humans.default_scope.projects  the tree's projects, when the data has none

It prints each change in words. It never edits the policy data: apply the
patch after review, e.g.
  jq -s '.[0] * .[1]' rego/data.json policy-proposal.json > data.new && mv data.new rego/data.json

It also writes the table of page URLs the gate reads (the mapping's
url.table), so a page whose front matter slug moved it is found.

  wikigate project --src samplewiki/site --map samplewiki/wiki-map.yaml --catalog my-catalog.json`

type projectFlags struct {
	src, mapFile, catalog, data, out string
}

func projectCommand() *cobra.Command {
	var f projectFlags
	c := &cobra.Command{
		Use:   "project --src <site> --map <file> [--catalog FILE] [--data rego/data.json] [--out FILE]",
		Short: "Proposes the policy-data change a docs tree's projects need (never edits the policy)",
		Long:  projectLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd.OutOrStdout()) },
	}
	fl := c.Flags()
	fl.StringVar(&f.src, "src", "", "site root, as given to wikigate ingest")
	fl.StringVar(&f.mapFile, "map", "", "mapping file, as given to wikigate ingest")
	fl.StringVar(&f.catalog, "catalog", "", "dataset catalog ingest wrote with --catalog (without it no dataset is proposed)")
	fl.StringVar(&f.data, "data", "rego/data.json", "the policy data the proposal is made against (read only)")
	fl.StringVar(&f.out, "out", "policy-proposal.json", "where the proposal (a JSON merge patch) is written")
	return c
}

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:      "project",
		Usage:     "--src <site> --map <file> [--catalog FILE] [--data rego/data.json] [--out policy-proposal.json]",
		Short:     "Proposes the policy-data change a docs tree's projects need (never edits the policy)",
		Long:      projectLong,
		CobraFunc: adopt(projectCommand),
	})
}

func (f *projectFlags) run(w io.Writer) error {
	if f.src == "" || f.mapFile == "" {
		return errors.New("--src and --map are required")
	}
	m, err := ingest.LoadMapping(f.mapFile)
	if err != nil {
		return err
	}
	read, fails, err := ingest.ReadTree(f.src, m)
	if err != nil {
		return err
	}
	if err := writeURLTable(w, m, read); err != nil {
		return err
	}
	data, err := os.ReadFile(f.data)
	if err != nil {
		return fmt.Errorf("reading the policy data: %w", err)
	}
	cat, err := readCatalog(f.catalog)
	if err != nil {
		return err
	}
	pages := make([]projects.Page, 0, len(read))
	for _, p := range read {
		pages = append(pages, projects.Page{Project: p.Project, Version: p.Version})
	}
	prop, err := projects.Propose(data, m.Site(), pages, cat)
	if err != nil {
		return fmt.Errorf("%s: %w", f.data, err)
	}
	fmt.Fprintf(w, "%s: %d pages (%d unreadable) read against %s\n", f.src, len(read), len(fails), f.data)
	return f.writeProposal(w, prop)
}

func (f *projectFlags) writeProposal(w io.Writer, prop *projects.Proposal) error {
	if len(prop.Changes) == 0 {
		fmt.Fprintf(w, "%s already holds what these projects need: nothing to propose\n", f.data)
		return nil
	}
	for _, c := range prop.Changes {
		fmt.Fprintln(w, "  "+c)
	}
	raw, err := json.MarshalIndent(prop.Patch, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.out, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "proposal written to %s (a JSON merge patch on %s, which is unchanged): review it, then apply it, e.g.\n", f.out, f.data)
	fmt.Fprintf(w, "  jq -s '.[0] * .[1]' %s %s > data.new && mv data.new %s\n", f.data, f.out, f.data)
	return nil
}

// writeURLTable records every page's URL for the gate, when the mapping
// names a table (url.table).
func writeURLTable(w io.Writer, m *ingest.Mapping, pages []ingest.Page) error {
	file := m.Site().TablePath()
	if file == "" {
		return nil
	}
	t := sitemap.Table{}
	for _, p := range pages {
		t.Add(p.URL, sitemap.Target{Path: p.Path, Version: p.Version})
	}
	if err := sitemap.WriteTable(file, t); err != nil {
		return fmt.Errorf("writing the url table: %w", err)
	}
	fmt.Fprintf(w, "url table: %d page URLs written to %s (the gate reads it at start and reload)\n", len(t), file)
	return nil
}

func readCatalog(file string) (*projects.Catalog, error) {
	if file == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	var doc struct {
		Catalog *projects.Catalog `json:"catalog"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Catalog == nil {
		return nil, fmt.Errorf("%s: not a catalog as wikigate ingest --catalog writes it (%v)", file, err)
	}
	return doc.Catalog, nil
}
