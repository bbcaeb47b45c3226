package wikigatecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/ingest"
)

const ingestLong = `Reads a docs tree (Markdown and MDX with front matter) and a mapping file
(YAML or JSON: projects, statuses, URL rules, dataset name prefix; see docs/ingest.md
"Loading your wiki"), and loads the pages into both backends the gate reads.
The tree's layout is detected, or named with --layout:

  docusaurus  docs/, versioned_docs/version-X/, i18n/<locale>/... for the
              mapping's url.locales (a docusaurus.config.* or a docs/ folder)
  mkdocs      mkdocs.yml's docs_dir (default docs/); nav titles pages
  mintlify    docs.json or mint.json; the pages its navigation lists
  markdown    every .md and .mdx file under --src

Pages are indexed as text: Markdown parsed (goldmark), MDX components and
HTML reduced to the text a reader sees, <script>/<style>, comments and
import/export lines dropped, entities decoded, code blocks kept as code,
headings kept with the anchors the site generator gives them.


  Meilisearch: the index (created if missing, with the settings the gate
    filters and ranks with), one document per page;
  RAGFlow: one dataset per project x version x status, named
    "<datasetPrefix><project> <version> <status>" (created if missing), one
    document per page with the citation metadata in meta_fields, parsed
    before the run ends.

A run is incremental and idempotent: pages whose content hash a backend
already holds are not sent, pages of the mapped projects that left the tree
are deleted; re-running after an interruption finishes what it left. It
prints what it added, changed and removed per backend, and exits non-zero
when a page failed. The dataset catalog (rego/data.json's "catalog") is
written to --catalog FILE, or printed with --dry-run or when the run created
datasets.

  wikigate ingest --src samplewiki/site --map samplewiki/wiki-map.yaml
  wikigate ingest --src ./website --map wiki-map.yaml --dry-run

URLs and keys default to the gate's: WIKIGATE_MEILI_URL, WIKIGATE_MEILI_KEY
(a key with write actions, or the master key), WIKIGATE_RAGFLOW_URL,
WIKIGATE_RAGFLOW_KEY. Prefer the variables to --meili-key/--ragflow-key,
which show in the process list.`

// init registers `wikigate ingest`; commands.go also offers it as
// `wikigate wikigate ingest`, the old spelling.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "ingest",
		Usage: "--src <site> --map <file> [--layout auto|docusaurus|mkdocs|mintlify|markdown] [--backends meilisearch,ragflow] [--catalog FILE] [--rebuild] [--dry-run]",
		Short: "Loads a docs tree (Docusaurus, MkDocs, Mintlify, Markdown) into the gate's Meilisearch index and RAGFlow datasets",
		Long:  ingestLong,
		CobraFunc: func(cmd *cobra.Command) {
			c := ingestCommand()
			cmd.Flags().AddFlagSet(c.Flags())
			cmd.RunE = c.RunE
		},
	})
}

type ingestFlags struct {
	src, mapFile, layout   string
	backends               string
	meiliURL, meiliKey     string
	meiliIndex             string
	ragflowURL, ragflowKey string
	catalog                string
	concurrency, batchSize int
	dryRun, rebuild        bool
}

func ingestCommand() *cobra.Command {
	var f ingestFlags
	c := &cobra.Command{
		Use:   "ingest --src <site> --map <file>",
		Short: "Loads a docs tree (Docusaurus, MkDocs, Mintlify, Markdown) into the gate's Meilisearch index and RAGFlow datasets",
		Long:  ingestLong,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context()) },
	}
	fl := c.Flags()
	fl.StringVar(&f.src, "src", "", "site root (holding docs/, mkdocs.yml, docs.json, or the pages)")
	fl.StringVar(&f.mapFile, "map", "", "mapping file (YAML or JSON)")
	fl.StringVar(&f.layout, "layout", "auto", "tree layout: auto (detect), docusaurus, mkdocs, mintlify or markdown")
	fl.StringVar(&f.backends, "backends", "meilisearch,ragflow", "backends to load, comma-separated")
	fl.StringVar(&f.meiliURL, "meili-url", "", "Meilisearch URL (default $WIKIGATE_MEILI_URL)")
	fl.StringVar(&f.meiliKey, "meili-key", "", "Meilisearch key with write actions (default $WIKIGATE_MEILI_KEY)")
	fl.StringVar(&f.meiliIndex, "meili-index", "wiki_pages", "index uid (the catalog's index in rego/data.json)")
	fl.StringVar(&f.ragflowURL, "ragflow-url", "", "RAGFlow URL (default $WIKIGATE_RAGFLOW_URL)")
	fl.StringVar(&f.ragflowKey, "ragflow-key", "", "RAGFlow API key (default $WIKIGATE_RAGFLOW_KEY)")
	fl.StringVar(&f.catalog, "catalog", "", "write the dataset catalog to this file instead of printing it")
	fl.IntVar(&f.concurrency, "concurrency", 4, "requests in flight per backend")
	fl.IntVar(&f.batchSize, "batch-size", 100, "Meilisearch documents per batch")
	fl.BoolVar(&f.dryRun, "dry-run", false, "read the tree and the backends, print what would change, write nothing")
	fl.BoolVar(&f.rebuild, "rebuild", false, "Meilisearch: load every page into a new index, swap it with the live one, delete the old")
	return c
}

func (f *ingestFlags) run(ctx context.Context) error {
	if f.src == "" || f.mapFile == "" {
		return errors.New("--src and --map are required")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if os.Getenv("GOGC") == "" {
		// A run is short and its heap small (a 1,000-page wiki is a few MB):
		// collecting less often cut a no-change re-run's CPU by a quarter
		// (bench/INGEST.md). GOGC still overrides it.
		debug.SetGCPercent(400)
	}
	m, err := ingest.LoadMapping(f.mapFile)
	if err != nil {
		return err
	}
	opts, err := f.options(m)
	if err != nil {
		return err
	}
	res, runErr := ingest.Run(ctx, opts)
	if res != nil {
		fmt.Printf("%s: %d pages read as a %s tree\n", f.src, res.Pages, res.Layout)
		for _, warning := range res.Warnings {
			fmt.Fprintln(os.Stderr, "warning: "+warning)
		}
		for _, rep := range res.Reports {
			rep.Print(os.Stdout)
		}
		// The gate maps page URLs (slugs included) through the table of the
		// URLs this run stored, when the mapping names one (url.table).
		if !f.dryRun {
			if err := writeURLTable(os.Stdout, m, res.Read); err != nil {
				return err
			}
		}
		if err := f.writeCatalog(res); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if n := res.Failed(); n > 0 {
		return fmt.Errorf("%d page(s) failed (see the ! lines)", n)
	}
	return nil
}

func (f *ingestFlags) options(m *ingest.Mapping) (ingest.Options, error) {
	layout, err := ingest.ParseLayout(f.layout)
	if err != nil {
		return ingest.Options{}, fmt.Errorf("--layout: %w", err)
	}
	o := ingest.Options{Src: f.src, Mapping: m, Layout: layout}
	for _, b := range strings.Split(f.backends, ",") {
		switch strings.TrimSpace(b) {
		case "meilisearch":
			o.Meili = &ingest.MeiliSync{
				Client: &ingest.MeiliClient{URL: orEnv(f.meiliURL, "WIKIGATE_MEILI_URL"), Key: orEnv(f.meiliKey, "WIKIGATE_MEILI_KEY")},
				Index:  f.meiliIndex, Projects: m.ProjectIDs(), BatchSize: f.batchSize, Concurrency: f.concurrency, DryRun: f.dryRun,
				Rebuild: f.rebuild, Languages: m.Languages,
			}
		case "ragflow":
			o.RAGFlow = &ingest.RAGFlowSync{
				Client:  &ingest.RAGFlowClient{URL: orEnv(f.ragflowURL, "WIKIGATE_RAGFLOW_URL"), Key: orEnv(f.ragflowKey, "WIKIGATE_RAGFLOW_KEY")},
				Mapping: m, Concurrency: f.concurrency, DryRun: f.dryRun, Progress: terminalProgress(os.Stderr),
			}
		default:
			return o, fmt.Errorf("--backends: %q is not meilisearch or ragflow", b)
		}
	}
	return o, nil
}

// writeCatalog writes the catalog to --catalog, or prints it in a dry run
// or when datasets were created (their ids must reach the policy);
// otherwise one line says how to get it.
func (f *ingestFlags) writeCatalog(res *ingest.Result) error {
	c := res.Catalog
	switch {
	case c == nil:
		return nil
	case f.dryRun || (f.catalog == "" && res.NewDatasets):
		fmt.Println("dataset catalog (rego/data.json \"catalog\"):")
		return c.Write(os.Stdout)
	case f.catalog == "":
		fmt.Println("dataset catalog: no dataset created (--catalog FILE writes it, --dry-run prints it)")
		return nil
	}
	out, err := os.Create(f.catalog)
	if err != nil {
		return err
	}
	if err := c.Write(out); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	fmt.Printf("dataset catalog written to %s\n", f.catalog)
	return nil
}

// terminalProgress draws "ragflow: n/total pages" on one line of w when w
// is a terminal, and nothing otherwise (a log or a pipe gets the report).
func terminalProgress(w *os.File) func(done, total int) {
	if st, err := w.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) { drawProgress(w, done, total) }
}

func drawProgress(w io.Writer, done, total int) {
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(w, "\rragflow [%s%s] %d/%d pages", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
	if done == total {
		fmt.Fprintln(w)
	}
}

func orEnv(v, name string) string {
	if v != "" {
		return v
	}
	return os.Getenv(name)
}
