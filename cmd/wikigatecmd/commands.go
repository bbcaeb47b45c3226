// Package wikigatecmd adds wikigate's command-line parts to Caddy: the
// top-level token, key, doctor, ingest, policy and audit commands, the
// gate's version line, and the WIKIGATE_* environment defaults the repo's
// Caddyfile relies on.
package wikigatecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/caddymodule"
	"github.com/wikigate/wikigate/identity"
)

// init applies the environment defaults before Caddy reads the Caddyfile
// (package init runs before main, in this binary and in an xcaddy build) and
// registers wikigate's commands at the top level (`wikigate token`,
// `wikigate key`, `wikigate doctor`), where an operator looks for them.
// `wikigate wikigate …`, the old spelling, stays as an alias for one
// release. Serving with the development JWT secret is warned about where
// it matters: when a configured verifier holds it (caddymodule).
func init() {
	applyEnvDefaults()
	if err := prepareDataDir(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "wikigate: "+err.Error())
		os.Exit(1)
	}
	if isValidation(os.Args) {
		caddymodule.ValidateWithoutStores() // for the life of this process
	}
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:      "token",
		Usage:     "(--agent ID | --human ID [--role R]) [--ttl 1h]",
		Short:     "Prints a signed JWT for an agent or a human (development secret by default)",
		Long:      tokenLong,
		CobraFunc: adopt(tokenCommand),
	})
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:      "key",
		Usage:     "create|list|revoke ...",
		Short:     "Manages hashed wikigate API keys (create, list, revoke)",
		Long:      keyLong,
		CobraFunc: adopt(keyCommand),
	})
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "wikigate",
		Usage: "token|key|ingest|doctor ...",
		Short: "Old spelling of wikigate token|key|ingest|doctor (kept for one release)",
		Long: `The commands that used to live here are at the top level now:

  wikigate token --agent kunora-coding-agent     (was: wikigate wikigate token …)
  wikigate key create --agent kunora-coding-agent
  wikigate ingest --src ./website --map wiki-map.yaml
  wikigate doctor --config Caddyfile

This alias will be removed in the next release.`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(tokenCommand(), keyCommand(), ingestCommand(), doctorCommand())
			refuseUnknownSubcommands(cmd)
		},
	})
}

// isValidation reports whether args only validate a configuration
// (`validate`, `adapt --validate`): the gate's stores are then not opened,
// so validation works beside a running gate and creates no database.
func isValidation(args []string) bool {
	if len(args) < 2 {
		return false
	}
	return args[1] == "validate" || (args[1] == "adapt" && slices.ContainsFunc(args[2:], func(a string) bool {
		return a == "--validate" || a == "--validate=true"
	}))
}

const tokenLong = `Mints tokens that the repo's default Caddyfile accepts.

  wikigate token --agent kunora-coding-agent [--ttl 1h]
  wikigate token --human alice [--role wiki-maintainer]

Tokens are signed with WIKIGATE_DEV_JWT_SECRET (a public development default
when unset: unsafe for production; production tokens come from your
identity provider).`

const keyLong = `Manages the hashed API key store the gate's api_keys_file names.

  wikigate key create --agent kunora-coding-agent [--label ci] [--ttl 720h]
  wikigate key list
  wikigate key revoke --prefix <prefix>

Keys live in WIKIGATE_API_KEYS_FILE (default data/api_keys.json); only their
SHA-256 hashes are stored, and a running gate picks changes up without a
reload. key list shows when a gate last accepted each key (kept to within a
minute beside the key file).`

// adopt moves a cobra command's flags, argument rule, action and
// subcommands onto the command Caddy built for a top-level registration,
// so the top-level command and the alias under "wikigate" are one
// definition.
func adopt(build func() *cobra.Command) func(*cobra.Command) {
	return func(cmd *cobra.Command) {
		gateCommand = cmd // tidyRoot reaches Caddy's root command through it
		c := build()
		cmd.Flags().AddFlagSet(c.Flags())
		cmd.Args, cmd.RunE = c.Args, c.RunE
		for _, sub := range c.Commands() {
			c.RemoveCommand(sub)
			cmd.AddCommand(sub)
		}
		refuseUnknownSubcommands(cmd)
	}
}

func tokenCommand() *cobra.Command {
	var agent, human, kid, issuer string
	var roles, audience []string
	var ttl time.Duration
	c := &cobra.Command{
		Use:   "token (--agent ID | --human ID [--role R])",
		Short: "Prints a signed JWT for an agent or a human",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (agent == "") == (human == "") {
				return errors.New("give exactly one of --agent and --human")
			}
			opts := identity.MintOptions{
				Secret: []byte(os.Getenv(envJWTSecret)), KeyID: kid, Audience: audience,
				Subject: agent, Issuer: issuer, TTL: ttl,
			}
			if human != "" {
				opts.Subject, opts.Roles, opts.RolesClaim = human, roles, "roles"
				if !cmd.Flags().Changed("issuer") {
					opts.Issuer = devHumanIssuer
				}
			}
			warnDevSecret(cmd.ErrOrStderr())
			if ttl > identity.DefaultMaxTTL {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: --ttl %s is over the %s gates accept by default (max_ttl); such a gate refuses this token\n", ttl, identity.DefaultMaxTTL)
			}
			tok, err := identity.MintHS256(opts)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), tok)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "agent id (the token's sub)")
	f.StringVar(&human, "human", "", "human subject, for the SSO-style token of authenticated-read")
	f.StringSliceVar(&roles, "role", nil, "human role (repeatable), e.g. wiki-maintainer")
	f.DurationVar(&ttl, "ttl", time.Hour, "token lifetime")
	f.StringVar(&kid, "kid", "", "key id header (empty: none)")
	f.StringVar(&issuer, "issuer", devAgentIssuer, "iss claim (humans default to "+devHumanIssuer+")")
	f.StringSliceVar(&audience, "audience", []string{devAudience}, "aud claim")
	return c
}

func warnDevSecret(w io.Writer) {
	if os.Getenv(envJWTSecret) == devJWTSecret {
		fmt.Fprintln(w, "warning: signed with the public development secret; set "+envJWTSecret+" (unsafe for production)")
	}
}
