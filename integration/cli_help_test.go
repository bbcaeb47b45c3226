package integration

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestHelpNamesTheBinary: an operator reading `wikigate <cmd> --help` is
// shown commands they can paste, never "caddy policy …" (Caddy's command
// tree names itself caddy unless told otherwise), and the top-level help
// lists the gate's own commands first.
func TestHelpNamesTheBinary(t *testing.T) {
	t.Parallel()
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

// replacingListed matches a help page's line listing one of Caddy's
// commands that would replace the binary with a stock Caddy.
var replacingListed = regexp.MustCompile(`(?m)^\s+(upgrade|add-package|remove-package)\s`)

// TestHelpShowsTheGatesExamplesAndHidesReplacingCommands: however an
// operator asks for help (no arguments, --help, -h, help) the page shows
// the gate's examples and documentation, never Caddy's "$ caddy run"
// examples, and does not offer upgrade, add-package or remove-package;
// shell completion does not offer them either.
func TestHelpShowsTheGatesExamplesAndHidesReplacingCommands(t *testing.T) {
	t.Parallel()
	bin := gateBinary(t)
	for _, args := range [][]string{nil, {"--help"}, {"-h"}, {"help"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("wikigate %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		page := string(out)
		if m := replacingListed.FindString(page); m != "" {
			t.Errorf("wikigate %s lists %q:\n%s", strings.Join(args, " "), strings.TrimSpace(m), page)
		}
		for _, want := range []string{"$ wikigate doctor --config Caddyfile", "wikigate's documentation: README.md and docs/", "  token "} {
			if !strings.Contains(page, want) {
				t.Errorf("wikigate %s lacks %q:\n%s", strings.Join(args, " "), want, page)
			}
		}
		for _, unwanted := range []string{"$ caddy run", "Full documentation is available at"} {
			if strings.Contains(page, unwanted) {
				t.Errorf("wikigate %s still shows Caddy's %q:\n%s", strings.Join(args, " "), unwanted, page)
			}
		}
	}
	out, err := exec.Command(bin, "token", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wikigate's documentation: README.md") {
		t.Errorf("wikigate token --help (err %v) does not point to the gate's documentation:\n%s", err, out)
	}
	out, err = exec.Command(bin, "__complete", "").CombinedOutput()
	if err != nil {
		t.Fatalf("wikigate __complete: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "token\t") {
		t.Fatalf("completion lacks the gate's token command:\n%s", out)
	}
	for _, name := range []string{"upgrade", "add-package", "remove-package"} {
		if strings.Contains(string(out), "\n"+name+"\t") {
			t.Errorf("shell completion offers %s:\n%s", name, out)
		}
	}
}

// TestReplacingCommandsAreRefused: Caddy's upgrade, add-package and
// remove-package would download a stock Caddy and put it in place of the
// binary; each exits 1 with a message saying why, and the binary is left
// byte for byte as it was.
func TestReplacingCommandsAreRefused(t *testing.T) {
	t.Parallel()
	bin := gateBinary(t)
	before := fileDigest(t, bin)
	for _, args := range [][]string{
		{"upgrade"}, {"upgrade", "--help"}, {"help", "upgrade"},
		{"add-package", "github.com/caddy-dns/cloudflare"}, {"remove-package", "github.com/wikigate/wikigate"},
	} {
		cmd := exec.Command(bin, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("wikigate %s: want exit status 1, got %v", strings.Join(args, " "), err)
		}
		name := args[0]
		if name == "help" {
			name = args[1]
		}
		want := "wikigate " + name + ": not available: it would replace this binary with a stock Caddy without the gate; rebuild from source"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("wikigate %s: stderr lacks %q:\n%s", strings.Join(args, " "), want, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("wikigate %s wrote to stdout:\n%s", strings.Join(args, " "), stdout.String())
		}
	}
	if after := fileDigest(t, bin); after != before {
		t.Errorf("the binary changed: %s before, %s after", before, after)
	}
}

// fileDigest is the SHA-256 of a file's bytes, with its mode.
func fileDigest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x %v", sha256.Sum256(b), fi.Mode())
}
