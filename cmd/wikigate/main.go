// Command wikigate is Caddy with the wikigate module, the development
// backends and wikigate's commands (token, key, ingest, doctor, policy,
// audit), built with plain `go build` (xcaddy.sh builds the same with
// xcaddy).
package main

import (
	"fmt"
	"os"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/wikigate/wikigate"
	"github.com/wikigate/wikigate/cmd/wikigatecmd"
)

func main() {
	// Caddy's upgrade, add-package and remove-package would put a stock
	// Caddy, without the gate, in place of this binary.
	if name, ok := wikigatecmd.ReplacingCommand(os.Args); ok {
		fmt.Fprintln(os.Stderr, wikigatecmd.RefuseReplacing(name))
		os.Exit(1)
	}
	// Help asked with a flag goes through the help command, so the gate's
	// examples and documentation replace Caddy's and those three are hidden.
	os.Args = wikigatecmd.RootHelpArgs(os.Args)
	// Caddy's version command knows only Caddy's version; an operator
	// needs the gate's too (a Caddy command cannot be registered twice).
	if wikigatecmd.IsVersionCall(os.Args) {
		wikigatecmd.PrintVersion(os.Stdout)
		return
	}
	// validate writes nothing (Caddy's creates the log files it checks);
	// reload refuses to move a running gate without --force.
	if wikigatecmd.IsValidateCall(os.Args) {
		os.Exit(wikigatecmd.Validate(os.Args, os.Stdout, os.Stderr))
	}
	if wikigatecmd.IsReloadCall(os.Args) {
		if err := wikigatecmd.CheckReload(os.Args, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "reload: "+err.Error())
			os.Exit(1)
		}
	}
	caddy.CustomBinaryName = wikigatecmd.BinaryName
	caddy.CustomLongDescription = wikigatecmd.LongDescription
	caddycmd.Main()
}
