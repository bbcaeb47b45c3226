package integration

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelpNamesTheBinary: an operator reading `wikigate <cmd> --help` is
// shown commands they can paste, never "caddy policy …" (Caddy's command
// tree names itself caddy unless told otherwise), and the top-level help
// lists the gate's own commands first.
func TestHelpNamesTheBinary(t *testing.T) {
	bin := gateBinary(t)
	for _, args := range [][]string{{"policy", "--help"}, {"token", "--help"}, {"audit", "--help"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("wikigate %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		want := "Usage:\n  wikigate " + args[0]
		if !strings.Contains(string(out), want) || strings.Contains(string(out), "caddy "+args[0]) {
			t.Errorf("wikigate %s: want %q and no \"caddy %s\", got:\n%s", strings.Join(args, " "), want, args[0], out)
		}
	}
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("wikigate --help: %v\n%s", err, out)
	}
	for _, want := range []string{"wikigate run --config Caddyfile", "policy   builds bundles", "Usage:\n  wikigate [command]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("wikigate --help lacks %q:\n%s", want, out)
		}
	}
}
