// Package devcaddy wraps the development backends (devmeili, devragflow) as
// Caddy handler modules, so the repo's Caddyfile can serve the whole protocol
// on one machine with one binary. They are development stand-ins: lexical
// search and extractive answers over the sample wiki, speaking the real wire
// contracts.
package devcaddy

import (
	"fmt"
	"net/http"

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
	srv       *devmeili.Server
}

// CaddyModule returns the Caddy module information.
func (*DevMeilisearch) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.wikigate_dev_meilisearch", New: func() caddy.Module { return new(DevMeilisearch) }}
}

// Provision loads the sample wiki into the development index.
func (m *DevMeilisearch) Provision(caddy.Context) error {
	key := caddy.NewReplacer().ReplaceAll(m.MasterKey, "")
	if key == "" {
		return fmt.Errorf("wikigate_dev_meilisearch: master_key is required (is its environment variable set?)")
	}
	srv, err := devmeili.New(devmeili.Config{MasterKey: key})
	if err != nil {
		return fmt.Errorf("wikigate_dev_meilisearch: %w", err)
	}
	m.srv = srv
	return nil
}

// ServeHTTP answers as Meilisearch would.
func (m *DevMeilisearch) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	m.srv.ServeHTTP(w, r)
	return nil
}

// UnmarshalCaddyfile parses `wikigate_dev_meilisearch { master_key <key> }`.
func (m *DevMeilisearch) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return parseKeyBlock(d, "master_key", &m.MasterKey)
}

// DevRAGFlow serves a development RAGFlow over the sample wiki.
type DevRAGFlow struct {
	// APIKey is the bearer key callers must present ({env.NAME} allowed). Required.
	APIKey string `json:"api_key,omitempty"`
	srv    *devragflow.Server
}

// CaddyModule returns the Caddy module information.
func (*DevRAGFlow) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.wikigate_dev_ragflow", New: func() caddy.Module { return new(DevRAGFlow) }}
}

// Provision chunks the sample wiki into the development datasets.
func (m *DevRAGFlow) Provision(caddy.Context) error {
	key := caddy.NewReplacer().ReplaceAll(m.APIKey, "")
	if key == "" {
		return fmt.Errorf("wikigate_dev_ragflow: api_key is required (is its environment variable set?)")
	}
	srv, err := devragflow.New(devragflow.Config{APIKey: key})
	if err != nil {
		return fmt.Errorf("wikigate_dev_ragflow: %w", err)
	}
	m.srv = srv
	return nil
}

// ServeHTTP answers as RAGFlow would.
func (m *DevRAGFlow) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	m.srv.ServeHTTP(w, r)
	return nil
}

// UnmarshalCaddyfile parses `wikigate_dev_ragflow { api_key <key> }`.
func (m *DevRAGFlow) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return parseKeyBlock(d, "api_key", &m.APIKey)
}

func parseMeili(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(DevMeilisearch)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

func parseRAGFlow(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(DevRAGFlow)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// parseKeyBlock reads a block holding exactly one option, `name <value>`.
func parseKeyBlock(d *caddyfile.Dispenser, name string, dst *string) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		if d.Val() != name {
			return d.Errf("unrecognized option %q (only %s)", d.Val(), name)
		}
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

// Interface guards
var (
	_ caddy.Provisioner           = (*DevMeilisearch)(nil)
	_ caddyhttp.MiddlewareHandler = (*DevMeilisearch)(nil)
	_ caddyfile.Unmarshaler       = (*DevMeilisearch)(nil)
	_ caddy.Provisioner           = (*DevRAGFlow)(nil)
	_ caddyhttp.MiddlewareHandler = (*DevRAGFlow)(nil)
	_ caddyfile.Unmarshaler       = (*DevRAGFlow)(nil)
)
