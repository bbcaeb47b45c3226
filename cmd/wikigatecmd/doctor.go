package wikigatecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/doctor"
)

const doctorLong = `Reads the configuration the gate would run (the Caddyfile, with the same
WIKIGATE_* variables), connects to its Meilisearch and RAGFlow, and reports
what the gate relies on that is missing (docs/backends.md, What the
backends must hold): the index and its filterable, searchable and
displayed attributes, the fields of a sample of pages, the citation meta_fields of a
sample of each catalog dataset's documents, catalog datasets that do not
exist or that the gate's RAGFlow key cannot access, default-scope projects
that are not public or have no catalog dataset, and backend versions.
It exits 1 when something is wrong.

  wikigate doctor --config Caddyfile
  wikigate doctor --config /etc/wikigate/Caddyfile --data /etc/wikigate/rego/data.json

The gate's own Meilisearch key is search-only; reading the index settings
and documents needs a key with indexes.get, settings.get, documents.get and
version (the read-only admin key): WIKIGATE_MEILI_KEY or --meili-key.`

type doctorFlags struct {
	config, adapter, data, meiliKey string
	sample                          int
}

func doctorCommand() *cobra.Command {
	var f doctorFlags
	c := &cobra.Command{
		Use:   "doctor [--config Caddyfile]",
		Short: "Checks that the configured backends hold what the gate relies on",
		Long:  doctorLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fl := c.Flags()
	fl.StringVarP(&f.config, "config", "c", "", "configuration file (default: Caddyfile in the current directory)")
	fl.StringVarP(&f.adapter, "adapter", "a", "", "config adapter (default: caddyfile for a Caddyfile)")
	fl.StringVar(&f.data, "data", "", "policy data file holding the catalog (default: data.json in the gate's policy_dir)")
	fl.StringVar(&f.meiliKey, "meili-key", "", "Meilisearch key that may read settings and documents (default $WIKIGATE_MEILI_KEY)")
	fl.IntVar(&f.sample, "sample", 20, "documents sampled per index and dataset")
	return c
}

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:      "doctor",
		Usage:     "[--config Caddyfile] [--data rego/data.json] [--meili-key KEY]",
		Short:     "Checks that the configured backends hold what the gate relies on",
		Long:      doctorLong,
		CobraFunc: adopt(doctorCommand),
	})
}

func (f *doctorFlags) run(cmd *cobra.Command) error {
	gates, err := f.gateConfigs()
	if err != nil {
		return err
	}
	failed := false
	for _, g := range gates {
		cfg, err := f.doctorConfig(g)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "gate: meilisearch %s index %s, ragflow %s\n", cfg.Meili.URL, cfg.Meili.Index, ragURL(cfg))
		r := doctor.Run(cmd.Context(), cfg)
		r.Print(cmd.OutOrStdout())
		failed = failed || r.Failed()
	}
	if failed {
		return errors.New("the backends do not hold what the gate relies on (see the FAIL lines)")
	}
	return nil
}

func ragURL(cfg doctor.Config) string {
	if cfg.RAGFlow == nil {
		return "(none)"
	}
	return cfg.RAGFlow.URL
}

// gateHandler is the part of the wikigate handler's JSON doctor needs.
type gateHandler struct {
	Handler     string `json:"handler"`
	PolicyDir   string `json:"policy_dir"`
	Meilisearch *struct {
		URL          string `json:"url"`
		APIKey       string `json:"api_key"`
		Index        string `json:"index"`
		TenantKey    string `json:"tenant_key"`
		TenantKeyUID string `json:"tenant_key_uid"`
	} `json:"meilisearch"`
	RAGFlow *struct {
		URL    string `json:"url"`
		APIKey string `json:"api_key"`
	} `json:"ragflow"`
}

// gateConfigs loads the configuration as `caddy run` would and returns
// every distinct wikigate handler in it.
func (f *doctorFlags) gateConfigs() ([]gateHandler, error) {
	raw, file, _, err := caddycmd.LoadConfig(f.config, f.adapter)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, errors.New("no configuration found: give --config")
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var gates []gateHandler
	seen := map[string]bool{}
	walkHandlers(tree, func(obj map[string]any) {
		b, _ := json.Marshal(obj)
		var g gateHandler
		if json.Unmarshal(b, &g) == nil && !seen[string(b)] {
			seen[string(b)] = true
			gates = append(gates, g)
		}
	})
	if len(gates) == 0 {
		return nil, fmt.Errorf("%s has no wikigate handler", file)
	}
	return gates, nil
}

// walkHandlers calls fn on every JSON object whose "handler" is wikigate.
func walkHandlers(v any, fn func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		if t["handler"] == "wikigate" {
			fn(t)
			return
		}
		for _, c := range t {
			walkHandlers(c, fn)
		}
	case []any:
		for _, c := range t {
			walkHandlers(c, fn)
		}
	}
}

// doctorConfig expands the handler's placeholders as Provision does and
// reads the catalog from the policy data.
func (f *doctorFlags) doctorConfig(g gateHandler) (doctor.Config, error) {
	if g.Meilisearch == nil {
		return doctor.Config{}, errors.New("the wikigate handler has no meilisearch block")
	}
	repl := caddy.NewReplacer()
	m := g.Meilisearch
	cfg := doctor.Config{
		Meili: doctor.MeiliTarget{
			URL: repl.ReplaceAll(m.URL, ""), APIKey: repl.ReplaceAll(m.APIKey, ""), Index: repl.ReplaceAll(m.Index, ""),
			TenantKey: repl.ReplaceAll(m.TenantKey, ""), TenantKeyUID: repl.ReplaceAll(m.TenantKeyUID, ""),
			AdminKey: orEnv(f.meiliKey, "WIKIGATE_MEILI_KEY"),
		},
		Sample: f.sample,
	}
	if cfg.Meili.Index == "" {
		cfg.Meili.Index = "wiki_pages"
	}
	if g.RAGFlow != nil {
		cfg.RAGFlow = &doctor.RAGFlowTarget{URL: repl.ReplaceAll(g.RAGFlow.URL, ""), APIKey: repl.ReplaceAll(g.RAGFlow.APIKey, "")}
	}
	dataFile := f.data
	if dataFile == "" {
		if g.PolicyDir == "" {
			return cfg, errors.New("the gate loads its policy from a bundle: give the policy data file with --data")
		}
		dataFile = filepath.Join(repl.ReplaceAll(g.PolicyDir, ""), "data.json")
	}
	data, err := os.ReadFile(dataFile)
	if err != nil {
		return cfg, fmt.Errorf("reading the catalog: %w", err)
	}
	if cfg.Catalog, err = doctor.ParseCatalog(data); err != nil {
		return cfg, fmt.Errorf("%s: %w", dataFile, err)
	}
	if cfg.DefaultScope, err = doctor.ParseDefaultScope(data); err != nil {
		return cfg, fmt.Errorf("%s: %w", dataFile, err)
	}
	return cfg, nil
}
