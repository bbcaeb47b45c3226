// Command wikigate is Caddy with the wikigate module, the development
// backends and the `wikigate` subcommand (tokens and API keys), built with
// plain `go build` (xcaddy.sh builds the same with xcaddy).
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/wikigate/wikigate"
)

func main() {
	caddycmd.Main()
}
