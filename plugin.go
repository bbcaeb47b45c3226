// Package wikigate registers everything wikigate adds to Caddy: the
// http.handlers.wikigate module, the `wikigate` subcommand and, unless the
// binary is built with -tags nodevbackends, the development backends'
// modules (plugin_devbackends.go). `xcaddy build --with
// github.com/wikigate/wikigate=.` and cmd/wikigate both import it.
package wikigate

import (
	_ "github.com/wikigate/wikigate/caddymodule"
	_ "github.com/wikigate/wikigate/cmd/wikigatecmd"
)
