//go:build nodevbackends

package wikigatecmd

import (
	"errors"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// errNoDevBackends is what a configuration naming a development backend
// gets from a binary built without them, instead of Caddy's bare
// "unrecognized directive".
var errNoDevBackends = errors.New("this wikigate was built with -tags nodevbackends, which leaves the development backends out; " +
	"build without the tag (go build -o wikigate ./cmd/wikigate) to run them, " +
	"or point the gate at real backends (deploy/Caddyfile.production)")

// The directives and module IDs of devbackends/devcaddy, kept so that a
// Caddyfile or JSON configuration naming them is refused with
// errNoDevBackends.
func init() {
	for _, name := range []string{"wikigate_dev_meilisearch", "wikigate_dev_ragflow"} {
		httpcaddyfile.RegisterHandlerDirective(name, refuseDevBackend)
		httpcaddyfile.RegisterDirectiveOrder(name, httpcaddyfile.Before, "reverse_proxy")
		caddy.RegisterModule(absentDevBackend{id: caddy.ModuleID("http.handlers." + name)})
	}
}

// refuseDevBackend is the directive's parser; Caddy's error names the
// directive and the Caddyfile line.
func refuseDevBackend(httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	return nil, errNoDevBackends
}

// absentDevBackend stands for a development backend's module in a JSON
// configuration: its provisioning fails with errNoDevBackends.
type absentDevBackend struct{ id caddy.ModuleID }

// CaddyModule returns the module information.
func (a absentDevBackend) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: a.id, New: func() caddy.Module { return &absentDevBackend{id: a.id} }}
}

// UnmarshalJSON accepts the backend's options (master_key, corpus...), so
// that Provision, not Caddy's strict decoding, tells what is missing.
func (a *absentDevBackend) UnmarshalJSON([]byte) error { return nil }

// Provision refuses the configuration.
func (a *absentDevBackend) Provision(caddy.Context) error {
	return errors.New(string(a.id) + ": " + errNoDevBackends.Error())
}
