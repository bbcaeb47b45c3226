package wikigatecmd

import (
	"fmt"
	"io"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/audit"
)

// init registers `wikigate audit verify`, which checks the hash chain the
// `wikigate_audit_file` log output writes.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "audit",
		Usage: "verify <file> [<file>...]",
		Short: "Verifies the hash chain of wikigate audit logs",
		Long: `Reads audit logs written by the wikigate_audit_file log output (rotated
files oldest first) and checks every stream's chain: a removed, reordered or
edited line is reported as file:line with what is wrong, and the exit status
is 1. On success it prints each stream's head (last seq and hash): keep it
elsewhere, since an edit of a stream's last line changes no later link.

  wikigate audit verify /var/log/wikigate/audit.log`,
		CobraFunc: func(cmd *cobra.Command) { cmd.AddCommand(auditVerifyCommand()) },
	})
}

func auditVerifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify <file> [<file>...]",
		Short: "Checks an audit log's hash chain and names the lines that break it",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			return verifyAudit(cmd.OutOrStdout(), files)
		},
	}
}

func verifyAudit(out io.Writer, files []string) error {
	var inputs []audit.Input
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		inputs = append(inputs, audit.Input{Name: name, R: f})
	}
	rep, err := audit.Verify(inputs...)
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(out, p)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("audit chain broken: %d problem(s) in %d record(s)", len(rep.Problems), rep.Records)
	}
	if rep.Records == 0 {
		return fmt.Errorf("no chained records (is the log written with output wikigate_audit_file?)")
	}
	fmt.Fprintf(out, "ok: %d record(s) in %d stream(s), %d other line(s)\n", rep.Records, len(rep.Heads), rep.Other)
	for _, h := range rep.Heads {
		fmt.Fprintf(out, "head stream %s seq %d sha256 %s (%s:%d)\n", h.Stream, h.Seq, h.Hash, h.File, h.Line)
	}
	return nil
}
