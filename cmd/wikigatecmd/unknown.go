package wikigatecmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// refuseUnknownSubcommands makes every command under c (c included) that
// only groups others (policy, audit, key) fail on a word that names none
// of them. Cobra prints such a group's help and exits 0 instead, so a
// script calling a subcommand this version lacks (`wikigate policy
// frobnicate`) would pass without having run anything. The group alone
// (`wikigate policy`) still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return unknownSubcommand(cmd, args[0])
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// unknownSubcommand is cobra's own wording for an unknown top-level
// command, with its suggestions, for a group's unknown subcommand.
func unknownSubcommand(cmd *cobra.Command, word string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q for %q", word, cmd.CommandPath())
	if suggestions := cmd.SuggestionsFor(word); len(suggestions) > 0 {
		b.WriteString("\n\nDid you mean this?\n")
		for _, s := range suggestions {
			fmt.Fprintf(&b, "\t%s\n", s)
		}
	}
	fmt.Fprintf(&b, "\nRun '%s --help' for usage.", cmd.CommandPath())
	return fmt.Errorf("%s", b.String())
}
