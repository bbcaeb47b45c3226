package wikigatecmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/ingest"
)

const ingestLong = `Reads a Docusaurus docs tree (docs/ and versioned_docs/version-X/, Markdown
and MDX with front matter) and a mapping file (YAML or JSON: projects,
statuses, URL rules; see README "Loading your wiki"), and loads the pages into
the Meilisearch index the gate searches. A run is incremental: pages whose
content hash the index already holds are not sent, pages of the mapped
projects that left the tree are deleted. It prints what it added, changed and
removed, and exits non-zero when a page failed.

  wikigate ingest --src ./website --map wiki-map.yaml
  wikigate ingest --src ./website --map wiki-map.yaml --dry-run

The key (a key with write actions, or the master key) is read from
WIKIGATE_MEILI_KEY unless --meili-key is given; prefer the variable, which
does not show in the process list. RAGFlow loading is not implemented yet.`

// init registers `wikigate ingest`; commands.go also offers it as
// `wikigate wikigate ingest` beside the other wikigate subcommands.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "ingest",
		Usage: "--src <site> --map <file> [--meili-url URL] [--meili-index UID] [--dry-run]",
		Short: "Loads a Docusaurus docs tree into the gate's Meilisearch index",
		Long:  ingestLong,
		CobraFunc: func(cmd *cobra.Command) {
			c := ingestCommand()
			cmd.Flags().AddFlagSet(c.Flags())
			cmd.RunE = c.RunE
		},
	})
}

type ingestFlags struct {
	src, mapFile           string
	meiliURL, meiliKey     string
	meiliIndex             string
	concurrency, batchSize int
	dryRun                 bool
}

func ingestCommand() *cobra.Command {
	var f ingestFlags
	c := &cobra.Command{
		Use:   "ingest --src <site> --map <file>",
		Short: "Loads a Docusaurus docs tree into the gate's Meilisearch index",
		Long:  ingestLong,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context()) },
	}
	fl := c.Flags()
	fl.StringVar(&f.src, "src", "", "site root holding docs/ (and versioned_docs/)")
	fl.StringVar(&f.mapFile, "map", "", "mapping file (YAML or JSON)")
	fl.StringVar(&f.meiliURL, "meili-url", "", "Meilisearch URL (default $WIKIGATE_MEILI_URL)")
	fl.StringVar(&f.meiliKey, "meili-key", "", "Meilisearch key with write actions (default $WIKIGATE_MEILI_KEY)")
	fl.StringVar(&f.meiliIndex, "meili-index", "wiki_pages", "index uid (the catalog's index in rego/data.json)")
	fl.IntVar(&f.concurrency, "concurrency", 2, "document batches in flight")
	fl.IntVar(&f.batchSize, "batch-size", 100, "documents per batch")
	fl.BoolVar(&f.dryRun, "dry-run", false, "read the tree and the index, print what would change, write nothing")
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
	m, err := ingest.LoadMapping(f.mapFile)
	if err != nil {
		return err
	}
	pages, unreadable, err := ingest.ReadTree(f.src, m)
	if err != nil {
		return err
	}
	sync := &ingest.MeiliSync{
		Client:   &ingest.MeiliClient{URL: orEnv(f.meiliURL, "WIKIGATE_MEILI_URL"), Key: orEnv(f.meiliKey, "WIKIGATE_MEILI_KEY")},
		Index:    f.meiliIndex,
		Projects: m.ProjectIDs(), BatchSize: f.batchSize, Concurrency: f.concurrency, DryRun: f.dryRun,
	}
	rep, err := sync.Run(ctx, pages, unreadable)
	if err != nil {
		return fmt.Errorf("meilisearch %s: %w", sync.Client.URL, err)
	}
	rep.Failures = append(unreadable, rep.Failures...)
	rep.Print(os.Stdout)
	if n := len(rep.Failures); n > 0 {
		return fmt.Errorf("%d page(s) failed", n)
	}
	return nil
}

func orEnv(v, name string) string {
	if v != "" {
		return v
	}
	return os.Getenv(name)
}
