// Package wikigatecmd adds wikigate's command-line parts to Caddy: the
// `wikigate` subcommand (development tokens, API keys) and the WIKIGATE_*
// environment defaults the repo's Caddyfile relies on.
package wikigatecmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/identity"
)

// init applies the environment defaults before Caddy reads the Caddyfile
// (package init runs before main, in this binary and in an xcaddy build) and
// registers the `wikigate` subcommand. Serving with the development JWT
// secret is warned about where it matters: when a configured verifier
// holds it (caddymodule).
func init() {
	applyEnvDefaults()
	prepareDataDir(os.Args)
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "wikigate",
		Usage: "token|key ...",
		Short: "Mints development tokens and manages wikigate API keys",
		Long: `Mints tokens that the repo's default Caddyfile accepts, and manages the
hashed API key store.

  wikigate wikigate token --agent kunora-coding-agent [--ttl 1h]
  wikigate wikigate token --human alice [--role wiki-maintainer]
  wikigate wikigate key create --agent kunora-coding-agent [--label ci] [--ttl 720h]
  wikigate wikigate key list
  wikigate wikigate key revoke --prefix <prefix>

Tokens are signed with WIKIGATE_DEV_JWT_SECRET (a public development default
when unset: unsafe for production). Keys live in WIKIGATE_API_KEYS_FILE
(default data/api_keys.json); only their SHA-256 hashes are stored.`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(tokenCommand(), keyCommand(), ingestCommand())
		},
	})
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
			warnDevSecret()
			tok, err := identity.MintHS256(opts)
			if err != nil {
				return err
			}
			fmt.Println(tok)
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

func warnDevSecret() {
	if os.Getenv(envJWTSecret) == devJWTSecret {
		fmt.Fprintln(os.Stderr, "warning: signed with the public development secret; set "+envJWTSecret+" (unsafe for production)")
	}
}

func keyCommand() *cobra.Command {
	c := &cobra.Command{Use: "key", Short: "Manages hashed API keys (create, list, revoke)"}
	c.AddCommand(keyCreateCommand(), keyListCommand(), keyRevokeCommand())
	return c
}

func openStore(file string) (*identity.KeyStore, error) {
	if file == "" {
		file = os.Getenv(envAPIKeysFile)
	}
	return identity.OpenKeyStore(file)
}

func keyCreateCommand() *cobra.Command {
	var agent, label, file string
	var ttl time.Duration
	c := &cobra.Command{
		Use:   "create --agent ID",
		Short: "Creates an API key, prints it once and stores only its hash",
		RunE: func(*cobra.Command, []string) error {
			if agent == "" {
				return errors.New("--agent is required")
			}
			store, err := openStore(file)
			if err != nil {
				return err
			}
			key, rec, err := store.Create(agent, label, ttl)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "created key %s for agent %s; it is shown once, store it now\n", rec.Prefix, rec.Agent)
			fmt.Println(key)
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", "", "agent id the key authenticates as")
	c.Flags().StringVar(&label, "label", "", "free-text label")
	c.Flags().DurationVar(&ttl, "ttl", 0, "lifetime (0: no expiry)")
	c.Flags().StringVar(&file, "file", "", "key store (default $"+envAPIKeysFile+")")
	return c
}

func keyListCommand() *cobra.Command {
	var file string
	c := &cobra.Command{
		Use:   "list",
		Short: "Lists API keys (prefix, agent, label, expiry, revoked, last used); never the keys",
		RunE: func(*cobra.Command, []string) error {
			store, err := openStore(file)
			if err != nil {
				return err
			}
			for _, r := range store.List() {
				exp := "never"
				if r.ExpiresAt != nil {
					exp = r.ExpiresAt.Format(time.RFC3339)
				}
				used := "never"
				if r.LastUsedAt != nil {
					used = r.LastUsedAt.UTC().Format(time.RFC3339)
				}
				fmt.Printf("%s\tagent=%s\tlabel=%q\texpires=%s\trevoked=%v\tlast_used=%s\n", r.Prefix, r.Agent, r.Label, exp, r.Revoked, used)
			}
			return nil
		},
	}
	c.Flags().StringVar(&file, "file", "", "key store")
	return c
}

func keyRevokeCommand() *cobra.Command {
	var prefix, file string
	c := &cobra.Command{
		Use:   "revoke --prefix P",
		Short: "Revokes an API key by its visible prefix",
		RunE: func(*cobra.Command, []string) error {
			store, err := openStore(file)
			if err != nil {
				return err
			}
			return store.Revoke(prefix)
		},
	}
	c.Flags().StringVar(&prefix, "prefix", "", "key prefix as shown by key list")
	c.Flags().StringVar(&file, "file", "", "key store")
	return c
}
