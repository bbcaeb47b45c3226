// Package wikigate registers everything wikigate adds to Caddy: the
// http.handlers.wikigate module, the development backends' modules and the
// `wikigate` subcommand. `xcaddy build --with github.com/wikigate/wikigate=.`
// and cmd/wikigate both import it.
package wikigate

import (
	_ "github.com/wikigate/wikigate/caddymodule"
	_ "github.com/wikigate/wikigate/cmd/wikigatecmd"
	_ "github.com/wikigate/wikigate/devbackends/devcaddy"
)
