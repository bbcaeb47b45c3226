package wikigatecmd

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// replacingCommands are Caddy's commands that download a stock Caddy build
// from caddyserver.com and put it in place of the running binary: the
// result has no gate, no policy and none of the gate's commands, and the
// next start serves the backends unguarded. They are refused and left out
// of help.
var replacingCommands = []string{"upgrade", "add-package", "remove-package"}

// rootExample replaces Caddy's examples ("caddy run --config caddy.json")
// on `wikigate --help` with the commands an operator of the gate types.
const rootExample = `  $ wikigate run --config Caddyfile --adapter caddyfile
  $ wikigate doctor --config Caddyfile
  $ wikigate token --agent kunora-coding-agent
  $ wikigate ingest --src ./website --map wiki-map.yaml
  $ wikigate reload --config Caddyfile --adapter caddyfile`

// caddyDocsFooter is the footer Caddy's command package appends to every
// help page; gateDocsFooter takes its place, so each page names the gate's
// own documentation before Caddy's.
const (
	caddyDocsFooter = "Full documentation is available at:\nhttps://caddyserver.com/docs/command-line\n"
	gateDocsFooter  = `wikigate's documentation: README.md and docs/ (operators.md, security.md,
agents.md, protocol.md) in the wikigate source. Caddy's own commands
(run, reload, adapt, fmt, ...): https://caddyserver.com/docs/command-line
`
)

// gateCommand is one of the gate's commands as Caddy's command package
// built it (adopt records it). Once Caddy has added it to the root command,
// Root() is that root, which the package does not otherwise expose.
var gateCommand *cobra.Command

// init makes tidyRoot run before any command of the tree runs, including
// cobra's help and shell-completion commands; RootHelpArgs sends every
// plain help request through the help command so it runs there too.
func init() {
	cobra.OnInitialize(tidyRoot)
}

// tidyRoot puts the gate's examples and documentation footer on the root
// command and hides and disarms the commands that would replace the binary.
// It may run more than once.
func tidyRoot() {
	if gateCommand == nil || !gateCommand.HasParent() {
		return
	}
	root := gateCommand.Root()
	root.Example = rootExample
	if tmpl := root.HelpTemplate(); !strings.Contains(tmpl, gateDocsFooter) {
		if strings.Contains(tmpl, caddyDocsFooter) {
			tmpl = strings.Replace(tmpl, caddyDocsFooter, gateDocsFooter, 1)
		} else {
			tmpl += "\n" + gateDocsFooter
		}
		root.SetHelpTemplate(tmpl)
	}
	for _, c := range root.Commands() {
		if slices.Contains(replacingCommands, c.Name()) {
			name := c.Name()
			c.Hidden = true
			c.Long = RefuseReplacing(name).Error()
			c.Run, c.RunE = nil, func(*cobra.Command, []string) error { return RefuseReplacing(name) }
		}
	}
}

// ReplacingCommand reports which of Caddy's binary-replacing commands args
// run or ask help for (`wikigate upgrade`, `wikigate help add-package`),
// so cmd/wikigate refuses it before Caddy's command tree is built.
func ReplacingCommand(args []string) (string, bool) {
	words := plainWords(args)
	if len(words) > 0 && words[0] == "help" {
		words = words[1:]
	}
	if len(words) > 0 && slices.Contains(replacingCommands, words[0]) {
		return words[0], true
	}
	return "", false
}

// RefuseReplacing is the error a binary-replacing command answers with.
func RefuseReplacing(name string) error {
	return errors.New(BinaryName + " " + name + ": not available: it would replace this binary " +
		"with a stock Caddy without the gate; rebuild from source (docs/operators.md: Building with xcaddy, Deploying)")
}

// RootHelpArgs rewrites a help request made with a flag (`wikigate`,
// `wikigate --help`, `wikigate policy build -h`) as the same request to
// the help command (`wikigate help policy build`), which prints the same
// page: cobra answers a help flag before any initialisation hook runs, and
// tidyRoot must run first. Any other args are returned unchanged, and so
// are help flags mixed with other flags, whose values the help command
// could not parse.
func RootHelpArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	rest := args[1:]
	if len(rest) == 0 {
		return []string{args[0], "help"}
	}
	helpFlags := 0
	var words []string
	for _, a := range rest {
		switch {
		case a == "--help" || a == "-h":
			helpFlags++
		case strings.HasPrefix(a, "-"):
			return args
		default:
			words = append(words, a)
		}
	}
	if helpFlags != 1 || (len(words) > 0 && words[0] == "help") {
		return args
	}
	return append([]string{args[0], "help"}, words...)
}

// plainWords is args without the program name and without flags, up to a
// "--" terminator.
func plainWords(args []string) []string {
	var words []string
	for _, a := range args[min(1, len(args)):] {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
	}
	return words
}
