package wikigatecmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/identity"
)

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
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			fmt.Fprintf(cmd.ErrOrStderr(), "created key %s for agent %s; it is shown once, store it now\n", rec.Prefix, rec.Agent)
			fmt.Fprintln(cmd.OutOrStdout(), key)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
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
				fmt.Fprintf(cmd.OutOrStdout(), "%s\tagent=%s\tlabel=%q\texpires=%s\trevoked=%v\tlast_used=%s\n", r.Prefix, r.Agent, r.Label, exp, r.Revoked, used)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if prefix == "" {
				return errors.New("--prefix is required (key list shows it)")
			}
			store, err := openStore(file)
			if err != nil {
				return err
			}
			rec, already, err := store.RevokeRecord(prefix)
			if err != nil {
				return err
			}
			verb := "revoked"
			if already {
				verb = "already revoked"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s\tagent=%s\tlabel=%q\n", verb, rec.Prefix, rec.Agent, rec.Label)
			return nil
		},
	}
	c.Flags().StringVar(&prefix, "prefix", "", "key prefix as shown by key list")
	c.Flags().StringVar(&file, "file", "", "key store")
	return c
}
