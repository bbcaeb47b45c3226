package integration

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// An unknown command or subcommand exits 1 with a message that names it
// and where to look (with cobra's suggestion when one is close), so a
// script calling a command this version lacks fails instead of passing on
// a help page; a group named alone still prints its help and exits 0.
func TestUnknownCommandsExitNonZero(t *testing.T) {
	t.Parallel()
	bin := gateBinary(t)
	for _, c := range []struct{ args, want string }{
		{"nosuch", `unknown command "nosuch" for "wikigate"`},
		{"policy nosuch", `unknown command "nosuch" for "wikigate policy"`},
		{"policy dif", "Did you mean this?\n\tdiff"},
		{"audit nosuch", `unknown command "nosuch" for "wikigate audit"`},
		{"key nosuch", `unknown command "nosuch" for "wikigate key"`},
		{"wikigate key nosuch", `unknown command "nosuch" for "wikigate wikigate key"`},
	} {
		out, err := exec.Command(bin, strings.Fields(c.args)...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("wikigate %s: %v, want exit status 1\n%s", c.args, err, out)
		}
		if !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "--help' for usage") {
			t.Errorf("wikigate %s: want %q and where to look:\n%s", c.args, c.want, out)
		}
	}
	out, err := exec.Command(bin, "policy").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Available Commands:") {
		t.Errorf("wikigate policy alone: %v, want its help:\n%s", err, out)
	}
}
