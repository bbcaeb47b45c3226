package wikigatecmd

import (
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/policyreplay"
)

// policyReplayCommand is `wikigate policy replay`: what a candidate policy
// would decide differently on recorded traffic, failing on any allow→deny,
// deny→allow or widening so it can gate a policy pull request.
func policyReplayCommand() *cobra.Command {
	var o policyreplay.Options
	c := &cobra.Command{
		Use:   "replay --log decisions.jsonl --candidate ./rego-new [--baseline ./rego]",
		Short: "Re-evaluates recorded decisions against a candidate policy and prints the flips",
		Long: `Reads the decision events of a decision log (policy { decision_log }), decides
each recorded input again with the candidate policy and prints what changed,
grouped by flip, caller and tool with counts and request ids. Compared with
the recorded results, or with --baseline when given. Exits 1 on any
allow→deny, deny→allow or widening (more projects, paths, datasets, pages,
working docs, write or write tools).

With --baseline it also compares the two policies' grants (policy diff):
a new agent, or a wider tool, project, path, version, working-docs or
limit grant, fails the replay even when no recorded call shows it
(--allow-widening reports it without failing).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return policyreplay.Run(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Log, "log", "", "decision log (JSON lines)")
	f.StringVar(&o.Candidate, "candidate", "", "policy folder to judge")
	f.StringVar(&o.Baseline, "baseline", "", "policy folder to compare with (default: the results recorded in the log); also compares the grants")
	f.BoolVar(&o.AllowWidening, "allow-widening", false, "report a widening of the grants without failing")
	_ = c.MarkFlagRequired("log")
	_ = c.MarkFlagRequired("candidate")
	return c
}
