package wikigatecmd

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/caddymodule"
	"github.com/wikigate/wikigate/policyreplay"
)

// policyExplainCommand is `wikigate policy explain`: why one call was
// decided as it was, beyond the reason string the caller saw.
func policyExplainCommand() *cobra.Command {
	var o policyreplay.ExplainOptions
	c := &cobra.Command{
		Use:   "explain (--input call.json | --request-id ID --log decisions.log [--revisions DIR]) [--policy ./rego]",
		Short: "Prints a decision, its deny code and reason, and the policy rules that produced it",
		Long: `Decides one input with the policy folder and prints the decision (allow with
scope and datasets, or deny with code and reason) and the wikigate rules that
held while it was made, each as file:line and rule head (OPA's trace, cut down
to rule exits). The input is a policy input (the JSON the policy sees), one
decision-log event, or every event of a request id in a decision log
(policy { decision_log }). --full adds OPA's trace of the policy's rules.

A logged decision is explained with the revision that made it: the gate
keeps the sources of the revisions it served (policy { keep_revisions },
default the last 20 in $WIKIGATE_DATA_DIR/policy-revisions, which
--revisions names). When that revision is not kept and --policy is another
revision, explain says so before the decision it prints.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Revisions == "" {
				if dir := caddymodule.DefaultRevisionsDir(); isDir(dir) {
					o.Revisions = dir
				}
			}
			return policyreplay.Explain(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.InputFile, "input", "", "policy input or decision event (JSON file)")
	f.StringVar(&o.RequestID, "request-id", "", "request id (the X-Request-Id) to find in --log")
	f.StringVar(&o.Log, "log", "", "decision log (JSON lines)")
	f.StringVar(&o.Policy, "policy", "rego", "policy folder")
	f.BoolVar(&o.Full, "full", false, "print OPA's trace of the policy's rules too")
	f.StringVar(&o.Revisions, "revisions", "", "the gate's kept policy revisions (default: $WIKIGATE_DATA_DIR/policy-revisions when it exists)")
	return c
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
