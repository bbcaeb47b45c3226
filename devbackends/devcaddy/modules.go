// Package devcaddy wraps the development backends (devmeili, devragflow) as
// Caddy handler modules, so the repo's Caddyfile can serve the whole protocol
// on one machine with one binary. They are development stand-ins: lexical
// search and extractive answers over the sample wiki, speaking the real wire
// contracts. With `corpus empty` they start as fresh servers (no index, no
// dataset), so the sample wiki, or any other, is loaded through
// `wikigate ingest` as a real deployment's would be.
package devcaddy

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/devbackends/devragflow"
)

func init() {
	caddy.RegisterModule(new(DevMeilisearch))
	caddy.RegisterModule(new(DevRAGFlow))
	httpcaddyfile.RegisterHandlerDirective("wikigate_dev_meilisearch", parseMeili)
	httpcaddyfile.RegisterHandlerDirective("wikigate_dev_ragflow", parseRAGFlow)
	httpcaddyfile.RegisterDirectiveOrder("wikigate_dev_meilisearch", httpcaddyfile.Before, "reverse_proxy")
	httpcaddyfile.RegisterDirectiveOrder("wikigate_dev_ragflow", httpcaddyfile.Before, "reverse_proxy")
}

// DevMeilisearch serves a development Meilisearch over the sample wiki.
type DevMeilisearch struct {
	// MasterKey protects the server ({env.NAME} allowed). Required.
	MasterKey string `json:"master_key,omitempty"`
	// Corpus is what the server holds at start: "sample" (the default: the
	// sample wiki in the index wiki_pages) or "empty" (no index, as a fresh
	// Meilisearch: `wikigate ingest` creates it).
	Corpus string `json:"corpus,omitempty"`
	srv    http.Handler
	key    string // in servers
}

// CaddyModule returns the Caddy module information.
func (*DevMeilisearch) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.wikigate_dev_meilisearch", New: func() caddy.Module { return new(DevMeilisearch) }}
}

// Provision loads the sample wiki into the development index, unless the
// corpus is empty.
func (m *DevMeilisearch) Provision(caddy.Context) error {
	key := caddy.NewReplacer().ReplaceAll(m.MasterKey, "")
	if key == "" {
		return fmt.Errorf("wikigate_dev_meilisearch: master_key is required (is its environment variable set?)")
	}
	empty, err := startsEmpty(m.Corpus)
	if err != nil {
		return fmt.Errorf("wikigate_dev_meilisearch: %w", err)
	}
	m.srv, m.key, err = sharedServer("meilisearch", key, empty, func() (http.Handler, error) {
		return devmeili.New(devmeili.Config{MasterKey: key, Empty: empty})
	})
	if err != nil {
		return fmt.Errorf("wikigate_dev_meilisearch: %w", err)
	}
	return nil
}

// Cleanup releases the server; the next configuration keeps it when it
// names the same one (see servers).
func (m *DevMeilisearch) Cleanup() error { return release(m.key) }

// ServeHTTP answers as Meilisearch would.
func (m *DevMeilisearch) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	m.srv.ServeHTTP(w, r)
	return nil
}

// UnmarshalCaddyfile parses
// `wikigate_dev_meilisearch { master_key <key>; corpus empty|sample }`.
func (m *DevMeilisearch) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return parseOptions(d, map[string]*string{"master_key": &m.MasterKey, "corpus": &m.Corpus})
}

// DevRAGFlow serves a development RAGFlow over the sample wiki.
type DevRAGFlow struct {
	// APIKey is the bearer key callers must present ({env.NAME} allowed). Required.
	APIKey string `json:"api_key,omitempty"`
	// Corpus is what the server holds at start: "sample" (the default: the
	// sample wiki's datasets and documents) or "empty" (no dataset, as a
	// fresh RAGFlow: `wikigate ingest` creates them, and a dataset named as
	// one of the sample's gets its id, so rego/data.json's catalog holds).
	Corpus string `json:"corpus,omitempty"`
	srv    http.Handler
	key    string // in servers
}

// CaddyModule returns the Caddy module information.
func (*DevRAGFlow) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.wikigate_dev_ragflow", New: func() caddy.Module { return new(DevRAGFlow) }}
}

// Provision chunks the sample wiki into the development datasets, unless
// the corpus is empty.
func (m *DevRAGFlow) Provision(caddy.Context) error {
	key := caddy.NewReplacer().ReplaceAll(m.APIKey, "")
	if key == "" {
		return fmt.Errorf("wikigate_dev_ragflow: api_key is required (is its environment variable set?)")
	}
	empty, err := startsEmpty(m.Corpus)
	if err != nil {
		return fmt.Errorf("wikigate_dev_ragflow: %w", err)
	}
	m.srv, m.key, err = sharedServer("ragflow", key, empty, func() (http.Handler, error) {
		return devragflow.New(devragflow.Config{APIKey: key, Empty: empty})
	})
	if err != nil {
		return fmt.Errorf("wikigate_dev_ragflow: %w", err)
	}
	return nil
}

// Cleanup releases the server; the next configuration keeps it when it
// names the same one (see servers).
func (m *DevRAGFlow) Cleanup() error { return release(m.key) }

// ServeHTTP answers as RAGFlow would.
func (m *DevRAGFlow) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	m.srv.ServeHTTP(w, r)
	return nil
}

// UnmarshalCaddyfile parses
// `wikigate_dev_ragflow { api_key <key>; corpus empty|sample }`.
func (m *DevRAGFlow) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return parseOptions(d, map[string]*string{"api_key": &m.APIKey, "corpus": &m.Corpus})
}

func parseMeili(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(DevMeilisearch)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

func parseRAGFlow(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(DevRAGFlow)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// startsEmpty reads a corpus option ({env.NAME} allowed): "sample" or
// unset loads the sample wiki, "empty" starts with nothing.
func startsEmpty(corpus string) (bool, error) {
	switch v := caddy.NewReplacer().ReplaceAll(corpus, ""); v {
	case "", "sample":
		return false, nil
	case "empty":
		return true, nil
	default:
		return false, fmt.Errorf("corpus must be empty or sample, not %q", v)
	}
}

// parseOptions reads a block of `name <value>` lines, each name one of
// opts and given at most once.
func parseOptions(d *caddyfile.Dispenser, opts map[string]*string) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		dst, ok := opts[name]
		if !ok {
			return d.Errf("unrecognized option %q (known: %s)", name, optionNames(opts))
		}
		if seen[name] {
			return d.Errf("option %q given twice", name)
		}
		seen[name] = true
		if !d.NextArg() {
			return d.ArgErr()
		}
		*dst = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

func optionNames(opts map[string]*string) string {
	names := make([]string, 0, len(opts))
	for n := range opts {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Interface guards
var (
	_ caddy.Provisioner           = (*DevMeilisearch)(nil)
	_ caddy.CleanerUpper          = (*DevMeilisearch)(nil)
	_ caddy.CleanerUpper          = (*DevRAGFlow)(nil)
	_ caddyhttp.MiddlewareHandler = (*DevMeilisearch)(nil)
	_ caddyfile.Unmarshaler       = (*DevMeilisearch)(nil)
	_ caddy.Provisioner           = (*DevRAGFlow)(nil)
	_ caddyhttp.MiddlewareHandler = (*DevRAGFlow)(nil)
	_ caddyfile.Unmarshaler       = (*DevRAGFlow)(nil)
)
