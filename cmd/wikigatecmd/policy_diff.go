package wikigatecmd

import (
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/policyreplay"
)

// policyDiffCommand is `wikigate policy diff OLD NEW`: the grants of two
// policies compared, failing on any widening, so a policy pull request that
// grants a new agent or widens one cannot pass CI on "no decision changes"
// (replay sees only the calls a gate recorded).
func policyDiffCommand() *cobra.Command {
	var o policyreplay.DiffOptions
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compares two policies' grants and exits 1 when the new one widens access",
		Long: `Reads the data of two policies (folders or bundle files) and compares, for
every agent, the people (every person, maintainers, anonymous readers), the
limits and the catalog: tools, write tools, projects, paths, versions,
working docs, limits, disabled, new agents. Prints each widening in plain
words, then the narrowings, and exits 1 on any widening (0 with
--allow-widening); --json prints the changes for a PR comment.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Old, o.Candidate = args[0], args[1]
			return policyreplay.RunDiff(cmd.OutOrStdout(), o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.JSON, "json", false, "print the changes as JSON")
	f.BoolVar(&o.AllowWidening, "allow-widening", false, "report widenings without failing")
	return c
}
