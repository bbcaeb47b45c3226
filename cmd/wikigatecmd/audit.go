package wikigatecmd

import (
	"fmt"
	"io"
	"os"
	"slices"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/audit"
)

// Exit statuses of `wikigate audit verify`.
const (
	verifyOK      = 0
	verifyBroken  = 1 // a chain is broken (or the files hold no chain, or cannot be read)
	verifyUnclean = 2 // the chains hold, but a stream ended without a close record
)

// init registers `wikigate audit verify`, which checks the hash chain the
// `wikigate_audit_file` log output writes.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "audit",
		Usage: "verify [--closed] [--known-unclean <stream>]... [--head <stream:seq:sha256>]... [--heads-from <log>] <file> [<file>...]",
		Short: "Verifies the hash chain of wikigate audit logs",
		Long: `Reads audit logs written by the wikigate_audit_file log output (rotated
files oldest first) and checks every stream's chain: a removed, reordered or
edited line is reported as file:line with what is wrong, and the exit status
is 1. Then it says how each stream ended: a stream whose gate died (kill -9,
a crash, power loss) has no close record, and the next gate's start record
says so; it is reported as an unclean end (its last seq and time: records of
calls answered after that may be lost) and the exit status is 2. A stream
still being written is open (no close record yet) and does not fail, unless
--closed says no gate writes the files any more. A stream written before
start and close records existed is unchecked. On success it prints each
stream's head (last seq and hash).

The chain alone cannot show a removed tail, an edited last line or a file
re-hashed whole after an edit: nothing in the file names the last hash.
The gate publishes each stream's head (stream, seq, sha256) at an interval
and at shutdown outside the file: its process log ("audit chain head"), the
metric caddy_wikigate_audit_chain_head, and optionally an anchor_url. Check
the file against those heads with --head stream:seq:sha256 (repeatable) or
--heads-from <log> (the process log, or the lines an anchor endpoint kept:
the latest head of each stream whose file has the name of a file given);
a head the file no longer matches exits 1.

Exit status: 0 ok, 1 chain broken (or a published head not matched), 2
chain intact but a stream ended uncleanly (--known-unclean <stream>
accepts one you have looked into).

  wikigate audit verify /var/log/wikigate/audit.log
  wikigate audit verify --heads-from /var/log/wikigate/process.log /var/log/wikigate/audit.log`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(auditVerifyCommand())
			refuseUnknownSubcommands(cmd)
		},
	})
}

func auditVerifyCommand() *cobra.Command {
	var opt verifyOptions
	cmd := &cobra.Command{
		Use:   "verify [--closed] [--known-unclean <stream>]... <file> [<file>...]",
		Short: "Checks an audit log's hash chain and how each stream ended",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			return caddycmd.WrapCommandFuncForCobra(func(caddycmd.Flags) (int, error) {
				return verifyAudit(cmd.OutOrStdout(), files, opt)
			})(cmd, files)
		},
	}
	cmd.Flags().BoolVar(&opt.closed, "closed", false, "no gate writes these files any more: an open stream is an unclean end too")
	cmd.Flags().StringArrayVar(&opt.known, "known-unclean", nil, "a stream whose unclean end is known (looked into): reported, not failed")
	cmd.Flags().StringArrayVar(&opt.heads, "head", nil, "a published head, stream:seq:sha256, the file must still hold")
	cmd.Flags().StringVar(&opt.headsFrom, "heads-from", "", "read the published heads from this log (the gate's process log, or an anchor endpoint's)")
	return cmd
}

type verifyOptions struct {
	closed    bool
	known     []string
	heads     []string
	headsFrom string
}

// failing is whether an end fails the verification under opt.
func (opt verifyOptions) failing(e audit.End) bool {
	unclean := e.State == audit.EndUnclean || (opt.closed && e.State == audit.EndOpen)
	return unclean && !slices.Contains(opt.known, e.Stream)
}

func verifyAudit(out io.Writer, files []string, opt verifyOptions) (int, error) {
	var inputs []audit.Input
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return verifyBroken, err
		}
		defer f.Close()
		inputs = append(inputs, audit.Input{Name: name, R: f})
	}
	heads, err := publishedHeads(opt, files)
	if err != nil {
		return verifyBroken, err
	}
	rep, err := audit.VerifyAnchored(heads, inputs...)
	if err != nil {
		return verifyBroken, err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(out, p)
	}
	if len(rep.Problems) > 0 {
		return verifyBroken, fmt.Errorf("audit chain broken: %d problem(s) in %d record(s)", len(rep.Problems), rep.Records)
	}
	if rep.Records == 0 {
		return verifyBroken, fmt.Errorf("no chained records (is the log written with output wikigate_audit_file?)")
	}
	failing := 0
	for _, e := range rep.Ends {
		if opt.failing(e) {
			failing++
		}
	}
	if failing > 0 {
		fmt.Fprintf(out, "unclean: %d record(s) in %d stream(s), %d other line(s); the chains hold, but %d stream(s) ended without a close record\n", rep.Records, len(rep.Heads), rep.Other, failing)
	} else {
		fmt.Fprintf(out, "ok: %d record(s) in %d stream(s), %d other line(s)\n", rep.Records, len(rep.Heads), rep.Other)
	}
	printEnds(out, rep, opt)
	for _, h := range rep.Heads {
		fmt.Fprintf(out, "head stream %s seq %d sha256 %s (%s:%d)\n", h.Stream, h.Seq, h.Hash, h.File, h.Line)
	}
	for _, a := range rep.Anchored {
		fmt.Fprintf(out, "anchored: stream %s seq %d matches its published head (%s:%d); %d later record(s) not anchored by a head given\n", a.Stream, a.Seq, a.File, a.Line, a.Later)
	}
	if failing > 0 {
		return verifyUnclean, nil
	}
	return verifyOK, nil
}

// printEnds names every stream that did not end with a close record.
func printEnds(out io.Writer, rep audit.Report, opt verifyOptions) {
	for _, e := range rep.Ends {
		switch {
		case e.State == audit.EndClosed:
		case opt.closed && e.State == audit.EndOpen:
			fmt.Fprintf(out, "unclean end (--closed): %s\n", e)
		case slices.Contains(opt.known, e.Stream) && e.State != audit.EndUnchecked:
			fmt.Fprintf(out, "known %s\n", e)
		default:
			fmt.Fprintln(out, e)
		}
	}
}
